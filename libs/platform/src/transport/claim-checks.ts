import { Logger } from '@nestjs/common';
import { DomainError } from '@gw/contracts';
import { Readable } from 'node:stream';
import {
  catchError,
  concatMap,
  dematerialize,
  filter,
  from,
  interval,
  map,
  materialize,
  merge,
  type MonoTypeOperatorFunction,
  type Observable,
  type ObservableInput,
  of,
  type OperatorFunction,
  takeUntil,
} from 'rxjs';
import { type BlobStore, isTransientBlobKey, transientBlobKey } from '../blobs/blob-store';
import { HEARTBEAT_FRAME, HEARTBEAT_INTERVAL_MS } from './heartbeats';

/**
 * What travels instead of a request, a reply or a stream piece too large for the bus: the key of a
 * transient blob-store object holding its JSON.
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
 * The sending side of the claim check (docs/decisions.md, claim checks): a message whose JSON
 * exceeds the bus's message limit is written to the blob store under a transient key and the key is
 * sent instead. The receiver deletes the object as soon as it has read it. For a request the sender
 * deletes it again when the call ends (the call may have found no service); a reply has no such end
 * on its sender's side. A crash in between leaves the object to the transient sweeper.
 */
export class ClaimCheckSender {
  private readonly logger = new Logger('ClaimChecks');

  constructor(
    private readonly blobs: BlobStore | null,
    /** The bus's largest message in bytes, read from the connected server. */
    private readonly maxMessageBytes: () => Promise<number>,
  ) {}

  async outgoing(subject: string, payload: object): Promise<OutgoingPayload> {
    const check = await this.stage(payload, 'request');
    if (!check) return { payload, release: noRelease };
    const blobs = this.blobs as BlobStore;
    const key = check.$claimCheck.key;
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

  /** A reply or a stream piece as it crosses: itself, or a claim check its receiver redeems and deletes. */
  async reply(payload: unknown): Promise<unknown> {
    return (await this.stage(payload, 'answer')) ?? payload;
  }

  /** The claim check of a payload too large for the bus, its object written; null when it fits. */
  private async stage(payload: unknown, what: 'request' | 'answer'): Promise<ClaimCheck | null> {
    const limit = (await this.maxMessageBytes()) - CLAIM_CHECK_MARGIN_BYTES;
    const json = JSON.stringify(payload) as string | undefined;
    // A string has at most 3 bytes per UTF-16 unit: most payloads are decided without counting.
    if (json === undefined || json.length * 3 <= limit) return null;
    const bytes = Buffer.byteLength(json);
    if (bytes <= limit) return null;
    if (!this.blobs)
      throw new DomainError(
        'payload_too_large',
        `The ${what} is ${bytes} bytes; the bus between the services carries at most ${limit}`,
      );
    const key = transientBlobKey();
    await this.blobs.put(key, Readable.from([Buffer.from(json)]), 'application/json');
    return { $claimCheck: { key, bytes } };
  }
}

/** Replaces each claim check among a call's replies by the reply it stands for, in order. */
export function redeemingReplies(blobs: BlobStore | null): MonoTypeOperatorFunction<unknown> {
  return mapInOrder((frame) =>
    isClaimCheck(frame) ? withHeartbeats(redeemClaimCheck(blobs, frame)) : of(frame),
  );
}

/**
 * The result of staging or redeeming a large message, with heartbeat frames while it takes: moving
 * a hundred megabytes through the store can outlast the caller's idle timeout, which must not take
 * it for a dead service. RpcClient drops the heartbeats, as it does a handler's.
 */
export function withHeartbeats<T>(work: Promise<T>): Observable<T | typeof HEARTBEAT_FRAME> {
  const done = from(work);
  return merge(
    interval(HEARTBEAT_INTERVAL_MS).pipe(
      map(() => HEARTBEAT_FRAME),
      takeUntil(done.pipe(catchError(() => of(undefined)))),
    ),
    done,
  );
}

/**
 * Maps each value through an asynchronous step, one after another, and lets the stream's error or
 * end through only after every value before it: `concatMap` alone passes an error on at once, so a
 * stream's last pieces (a broken answer's usage) would be lost behind one still being staged.
 */
export function mapInOrder<T, R>(project: (value: T) => ObservableInput<R>): OperatorFunction<T, R> {
  return (source) =>
    source.pipe(
      materialize(),
      concatMap((note) =>
        note.kind === 'N'
          ? // A mapped value's own completion is not the stream's.
            from(project(note.value)).pipe(
              materialize(),
              filter((mapped) => mapped.kind !== 'C'),
            )
          : of(note),
      ),
      dematerialize(),
    );
}

/** The receiving side: the message a claim check stands for, its object deleted once read. */
export async function redeemClaimCheck(blobs: BlobStore | null, check: ClaimCheck): Promise<unknown> {
  if (!blobs)
    throw new DomainError(
      'payload_too_large',
      `The message is ${check.$claimCheck.bytes} bytes, above the bus's limit, and this service has no blob store to take it`,
    );
  const object = await blobs.get(check.$claimCheck.key);
  if (!object) throw new DomainError('service_unavailable', 'The message was withdrawn before it was read');
  const chunks: Buffer[] = [];
  for await (const chunk of object.body as AsyncIterable<Buffer>) chunks.push(chunk);
  await blobs.delete(check.$claimCheck.key);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}
