import { Inject, Injectable, Logger } from '@nestjs/common';
import { GeneratedFileContracts, type GenerationPolicy, type StoredFile } from '@gw/contracts';
import type { Readable } from 'node:stream';
import { RpcClient } from '../transport/rpc-client';
import { BLOB_STORE, type BlobStore } from './blob-store';
import { uploadSlotBound } from './upload-slot-bound';

/** A file a service generated, as a stream of its bytes and what it is. */
export interface GeneratedFile {
  organizationId: string;
  body: Readable;
  /** `image/…`, `video/…` or `audio/…`; it decides the file's type. */
  contentType: string;
  storagePolicy: GenerationPolicy;
  externalUserId?: string | null;
}

/**
 * How a producer (the media service) stores what it generated: a slot from the storage service,
 * the bytes streamed into the blob store under its key and bounded by it, then the registration
 * (GeneratedFileContracts). The stream is never held whole.
 *
 * Whatever fails after the slot is handed back to the storage service to abort, never removed
 * here: after an unanswered register the file may be stored already, and only the service knows.
 * It removes object and record of a slot still pending; if it cannot be reached, its sweeper does.
 */
@Injectable()
export class GeneratedFileWriter {
  private readonly logger = new Logger('GeneratedFileWriter');

  constructor(
    private readonly rpc: RpcClient,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async store(file: GeneratedFile): Promise<StoredFile> {
    const { organizationId } = file;
    const slot = await this.rpc.request(GeneratedFileContracts.begin, { organizationId });
    try {
      const bounded = file.body.pipe(uploadSlotBound(slot));
      file.body.once('error', (err) => bounded.destroy(err));
      const written = await this.blobs.put(slot.objectKey, bounded, file.contentType);
      return await this.rpc.request(GeneratedFileContracts.register, {
        organizationId,
        objectKey: slot.objectKey,
        size: written.size,
        contentType: file.contentType,
        storagePolicy: file.storagePolicy,
        externalUserId: file.externalUserId ?? null,
      });
    } catch (err) {
      await this.rpc
        .request(GeneratedFileContracts.abort, { organizationId, objectKey: slot.objectKey })
        .catch((abortErr: unknown) =>
          this.logger.warn(
            `Generated file ${slot.fileId} left for the sweeper: ${(abortErr as Error).message}`,
          ),
        );
      throw err;
    }
  }
}
