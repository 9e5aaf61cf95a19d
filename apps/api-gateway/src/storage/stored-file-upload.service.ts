import { Inject, Injectable, Logger } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import busboy from 'busboy';
import {
  DomainError,
  type Principal,
  StorageContracts,
  type StoredFile,
  type UploadSlot,
} from '@gw/contracts';
import {
  type DetectedMedia,
  detectStoredMedia,
  MEDIA_SIGNATURE_BYTES,
  UploadStoredFileFieldsDto,
} from '@gw/dto';
import { RpcClient, validationErrorToDomainError } from '@gw/platform';
import { BLOB_STORE, type BlobStore, uploadSlotBound } from '@gw/platform/blobs';
import type { Request } from 'express';
import { type Readable } from 'node:stream';
import { ClientBodyWatch } from '../http/client-body-watch';
import { findJsonHazard } from '../http/json-hazards';
import { peek } from '../http/stream-peek';

/** What was written before the form's other fields are known. */
interface WrittenObject {
  slot: UploadSlot;
  media: DetectedMedia;
  size: number;
}

/**
 * Streams the multipart `file` of POST /v1/storage/files straight into the blob store: its first
 * bytes decide the type (refused before anything is recorded), the storage service hands out the
 * key (an intent recorded before the object), bytes are counted against the slot's bound as they
 * pass, and only key, size and type go to the storage service (claim check). The file is never
 * held whole: at most one chunk here, one part in the S3 store.
 */
@Injectable()
export class StoredFileUploadService {
  private readonly logger = new Logger('StoredFileUpload');

  constructor(
    private readonly rpc: RpcClient,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async upload(principal: Principal, request: Request): Promise<StoredFile> {
    const fields: Record<string, string> = {};
    // Set inside busboy's callback, so held in an object the compiler does not narrow to null.
    const upload: { written: Promise<WrittenObject> | null } = { written: null };
    const parsed = new Promise<void>((resolve, reject) => {
      let form: busboy.Busboy;
      try {
        form = busboy({
          headers: request.headers,
          limits: { files: 1, fields: 8, fieldSize: 4096, parts: 10 },
        });
      } catch (err) {
        return reject(new DomainError('invalid_request', (err as Error).message, 'file'));
      }
      form.on('field', (name, value) => (fields[name] = value));
      form.on('file', (name, stream) => {
        if (name !== 'file' || upload.written) {
          stream.resume();
          return;
        }
        const written = this.write(principal, stream);
        upload.written = written;
        // Refused early (type, size): stop reading, the answer goes out at once.
        written.catch((err: unknown) => reject(err as Error));
      });
      form.once('close', resolve);
      form.once('error', (err: Error) => reject(new DomainError('invalid_request', err.message, 'file')));
      request.pipe(form);
    });
    try {
      await parsed;
    } catch (err) {
      request.unpipe();
      await upload.written?.then(
        (object) => this.abort(principal, object.slot),
        () => undefined,
      );
      throw err;
    }
    if (!upload.written)
      throw new DomainError('invalid_request', 'file is required: a multipart upload named file', 'file');
    const object = await upload.written;
    try {
      const params = this.fieldsOf(fields);
      return await this.rpc.request(StorageContracts.completeUpload, {
        principal,
        fileId: object.slot.fileId,
        fileType: object.media.fileType,
        mimeType: object.media.mimeType,
        storagePolicy: params.storagePolicy,
        externalUserId: params.externalUserId ?? null,
        size: object.size,
      });
    } catch (err) {
      await this.abort(principal, object.slot);
      throw err;
    }
  }

  private fieldsOf(fields: Record<string, string>): UploadStoredFileFieldsDto {
    const hazard = findJsonHazard(fields);
    if (hazard) throw new DomainError('invalid_request', hazard.message, hazard.path || null);
    const params = plainToInstance(UploadStoredFileFieldsDto, fields);
    const errors = validateSync(params, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) throw validationErrorToDomainError(errors);
    return params;
  }

  private async write(principal: Principal, stream: Readable): Promise<WrittenObject> {
    const { head, body } = await peek(stream, MEDIA_SIGNATURE_BYTES);
    const media = detectStoredMedia(head);
    if (!media)
      throw new DomainError(
        'unsupported_media_type',
        'The file is not an image, video or audio in a supported format (PNG, JPEG, GIF, WebP, MP4, QuickTime, WebM, AVI, WAV, MP3, FLAC, OGG, M4A)',
        'file',
      );
    const slot = await this.rpc.request(StorageContracts.beginUpload, { principal });
    const bounded = body.pipe(uploadSlotBound(slot));
    const watch = new ClientBodyWatch(body, bounded);
    try {
      const { size } = await this.blobs.put(slot.objectKey, bounded, media.mimeType);
      return { slot, media, size };
    } catch (err) {
      await this.abort(principal, slot);
      throw watch.failure(err, this.logger, `Upload ${slot.fileId}`);
    }
  }

  /**
   * Has the storage service remove what an upload left, object and record, if the upload is still
   * pending there. The object is never removed here: after an unanswered completion the file may be
   * stored already. What the service cannot be asked to remove now, its sweeper removes later.
   */
  private async abort(principal: Principal, slot: UploadSlot): Promise<void> {
    await this.rpc
      .request(StorageContracts.abortUpload, { principal, fileId: slot.fileId })
      .catch((err: unknown) =>
        this.logger.warn(`Upload ${slot.fileId} left for the sweeper: ${(err as Error).message}`),
      );
  }
}
