import { Logger } from '@nestjs/common';
import { DomainError } from '@gw/contracts';
import { Readable } from 'node:stream';
import { type BlobStore, isTransientBlobKey, transientBlobKey } from '../blobs/blob-store';

/**
 * What travels instead of a request payload too large for the bus: the key of a transient
 * blob-store object holding the payload's JSON.
 */
export interface ClaimCheck {
  $claimCheck: { key: string; bytes: number };
}

/**
 * Room left in a NATS message for what Nest wraps around the payload (subject, packet id, headers):
 * a payload bigger than `max_payload` minus this goes by claim check.
 */
export const CLAIM_CHECK_MARGIN_BYTES = 8 * 1024;

export function isClaimCheck(data: unknown): data is ClaimCheck {
  const check = (data as Partial<ClaimCheck> | null)?.$claimCheck;
  return (
    typeof check === 'object' &&
    check !== null &&
    typeof check.key === 'string' &&
    isTransientBlobKey(check.key) &&
    typeof check.bytes === 'number'
  );
}

/** A request ready to send: the payload itself, or a claim check and how to remove its object after the call. */
export interface OutgoingPayload {
  payload: object;
  release: () => void;
}

const noRelease = () => undefined;

/**
 * The sending side of the claim check (docs/decisions.md, claim checks): a request payload whose
 * JSON exceeds the bus's message limit is written to the blob store under a transient key and the
 * key is sent instead. The sender deletes the object when the call ends, the receiver as soon as it
 * has read it; a crash in between leaves it to the transient sweeper.
 */
export class ClaimCheckSender {
  private readonly logger = new Logger('ClaimChecks');

  constructor(
    private readonly blobs: BlobStore | null,
    /** The bus's largest message in bytes, read from the connected server. */
    private readonly maxMessageBytes: () => Promise<number>,
  ) {}

  async outgoing(subject: string, payload: object): Promise<OutgoingPayload> {
    const limit = (await this.maxMessageBytes()) - CLAIM_CHECK_MARGIN_BYTES;
    const json = JSON.stringify(payload);
    // A string has at most 3 bytes per UTF-16 unit: most payloads are decided without counting.
    if (json.length * 3 <= limit) return { payload, release: noRelease };
    const bytes = Buffer.byteLength(json);
    if (bytes <= limit) return { payload, release: noRelease };
    if (!this.blobs)
      throw new DomainError(
        'payload_too_large',
        `The request is ${bytes} bytes; the bus between the services carries at most ${limit}`,
      );
    const key = transientBlobKey();
    await this.blobs.put(key, Readable.from([Buffer.from(json)]), 'application/json');
    const blobs = this.blobs;
    const check: ClaimCheck = { $claimCheck: { key, bytes } };
    return {
      payload: check,
      release: () =>
        void blobs
          .delete(key)
          .catch((err: unknown) =>
            this.logger.warn(
              `Claim check ${key} of ${subject} left for the sweeper: ${(err as Error).message}`,
            ),
          ),
    };
  }
}

/** The receiving side: the payload a claim check stands for, its object deleted once read. */
export async function redeemClaimCheck(blobs: BlobStore | null, check: ClaimCheck): Promise<unknown> {
  if (!blobs)
    throw new DomainError(
      'payload_too_large',
      `The request is ${check.$claimCheck.bytes} bytes, above the bus's limit, and this service has no blob store to take it`,
    );
  const object = await blobs.get(check.$claimCheck.key);
  if (!object) throw new DomainError('service_unavailable', 'The request was withdrawn before it was read');
  const chunks: Buffer[] = [];
  for await (const chunk of object.body as AsyncIterable<Buffer>) chunks.push(chunk);
  await blobs.delete(check.$claimCheck.key);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}
