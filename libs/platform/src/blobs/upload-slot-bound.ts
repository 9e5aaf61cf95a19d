import { storageQuotaExceeded, storedFileTooLarge, type UploadSlot } from '@gw/contracts';
import { Transform } from 'node:stream';

/**
 * Passes a file's bytes on while the slot holds them and fails the stream with the slot's 413 the
 * moment they pass its bound, so whoever streams into the blob store (the gateway for an upload, a
 * producer for a generated file) never writes more than the storage service allowed.
 */
export function uploadSlotBound(slot: UploadSlot): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size <= slot.maxBytes) return done(null, chunk);
      done(slot.limitedBy === 'quota' ? storageQuotaExceeded() : storedFileTooLarge(slot.maxBytes));
    },
  });
}
