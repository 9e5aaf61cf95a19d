import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';

/** What the stores know of an object. */
export interface BlobInfo {
  size: number;
  contentType: string;
}

export interface BlobObject extends BlobInfo {
  body: Readable;
}

/**
 * The one port the services and the gateway write and read file bytes through: S3 in the
 * distributed mode, a local directory in the embedded one (docs/decisions.md, blob store). Keys are
 * `<organizationId>/<fileId>`; the caller owns them. Every method is idempotent where it can be:
 * deleting a missing object succeeds, reading one answers null.
 */
export interface BlobStore {
  /** Streams `body` into the object; never holds it whole. Rejects (and leaves no object) when the stream fails. */
  put(key: string, body: Readable, contentType: string): Promise<BlobInfo>;
  head(key: string): Promise<BlobInfo | null>;
  get(key: string): Promise<BlobObject | null>;
  delete(key: string): Promise<void>;
  /** A URL that reads the object without credentials until `expiresAt` (a capability: never log it). */
  signedUrl(key: string, contentType: string, expiresAt: Date): Promise<string>;
  /**
   * Removes the transient objects (transientBlobKey) written before `before`, what a crashed call
   * left, and answers how many. Safe beside another replica doing the same: deletes are idempotent.
   */
  sweepTransient(before: Date): Promise<number>;
}

/** Injection token of the configured BlobStore. */
export const BLOB_STORE = Symbol('BLOB_STORE');

/** Object keys are an organization id and a file id (both uuids); anything else names no stored file. */
const KEY = /^[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

/** Where objects that live only as long as one call (claim checks, audio on its way to a provider) are kept. */
export const TRANSIENT_BLOB_PREFIX = 'transient/';
const TRANSIENT_KEY = /^transient\/[0-9a-f-]{36}$/;

export function isBlobKey(key: string): boolean {
  return KEY.test(key);
}

/** A key transientBlobKey made: the object of one call, owned by no organization. */
export function isTransientBlobKey(key: string): boolean {
  return TRANSIENT_KEY.test(key);
}

export function blobKey(organizationId: string, fileId: string): string {
  return `${organizationId}/${fileId}`;
}

/** A fresh key under TRANSIENT_BLOB_PREFIX: its writer deletes it when the call ends, a sweeper if it crashed. */
export function transientBlobKey(): string {
  return `${TRANSIENT_BLOB_PREFIX}${randomUUID()}`;
}

/** The organization and file a key names, or null when it names no object. */
export function parseBlobKey(key: string): { organizationId: string; fileId: string } | null {
  if (!isBlobKey(key)) return null;
  const [organizationId, fileId] = key.split('/');
  return { organizationId, fileId };
}
