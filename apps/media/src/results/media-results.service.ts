import { Inject, Injectable } from '@nestjs/common';
import type { GeneratedMediaFile, MediaGeneration, MediaResultFile } from '@gw/contracts';
import { BLOB_STORE, blobKey, type BlobStore, GeneratedFileWriter } from '@gw/platform/blobs';
import type { Readable } from 'node:stream';
import type { MediaGenerationEntity, StoredResultFile } from '../generations/media-generation.entity';
import { mediaGenerationView } from '../generations/media-generation.view';

export const MEDIA_URL_TTL = Symbol('MEDIA_URL_TTL');

/** One file a job produced, on its way to storage. */
export interface ProducedFile {
  body: Readable;
  contentType: string;
  revisedPrompt?: string;
}

/**
 * Results are files of the organization (AI_GENERATION, TEMP_GENERATION): stored through storage's
 * claim check, so they count in its stats and quota and expire; a record keeps their keys and shows
 * urls signed afresh on every read, never longer than the file lives.
 */
@Injectable()
export class MediaResults {
  constructor(
    private readonly writer: GeneratedFileWriter,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(MEDIA_URL_TTL) private readonly urlTtlMs: number,
  ) {}

  async store(
    organizationId: string,
    externalUserId: string | null,
    file: ProducedFile,
  ): Promise<StoredResultFile> {
    const stored = await this.writer.store({
      organizationId,
      body: file.body,
      contentType: file.contentType,
      storagePolicy: 'TEMP_GENERATION',
      externalUserId,
    });
    return {
      fileId: stored.id,
      objectKey: blobKey(organizationId, stored.id),
      contentType: stored.mimeType,
      size: stored.size,
      url: stored.url,
      expiresAt: stored.expiresAt,
      ...(file.revisedPrompt !== undefined ? { revisedPrompt: file.revisedPrompt } : {}),
    };
  }

  /** The Generation record of a stored generation, its files signed afresh. */
  async view(row: MediaGenerationEntity): Promise<MediaGeneration> {
    return mediaGenerationView(row, row.status === 'completed' ? await this.shown(row.files) : []);
  }

  /** The files as a client reads them, each with a fresh url. */
  async shown(files: StoredResultFile[]): Promise<MediaResultFile[]> {
    return Promise.all(
      files.map(async (file) => ({
        url: await this.url(file),
        file_id: file.fileId,
        content_type: file.contentType,
        ...(file.revisedPrompt !== undefined ? { revised_prompt: file.revisedPrompt } : {}),
      })),
    );
  }

  /** The files where the blob store keeps them, for a route that answers their bytes. */
  async located(files: StoredResultFile[]): Promise<GeneratedMediaFile[]> {
    return Promise.all(
      files.map(async (file) => ({
        fileId: file.fileId,
        objectKey: file.objectKey,
        contentType: file.contentType,
        size: file.size,
        url: await this.url(file),
      })),
    );
  }

  /** A file's bytes as base64 (the images API's `b64_json`); null when it is gone (expired or deleted). */
  async base64(file: StoredResultFile): Promise<string | null> {
    const object = await this.blobs.get(file.objectKey);
    if (!object) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('base64');
  }

  private url(file: StoredResultFile): Promise<string> {
    const fileEnds = file.expiresAt ? new Date(file.expiresAt).getTime() : Number.POSITIVE_INFINITY;
    const ends = Math.min(Date.now() + this.urlTtlMs, fileEnds);
    return this.blobs.signedUrl(file.objectKey, file.contentType, new Date(ends));
  }
}
