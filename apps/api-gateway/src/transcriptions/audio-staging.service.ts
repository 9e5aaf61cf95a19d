import { Inject, Injectable, Logger } from '@nestjs/common';
import busboy from 'busboy';
import { DomainError, type TranscriptionAudio } from '@gw/contracts';
import { AUDIO_MIME_TYPES, detectAudioFormat, MAX_AUDIO_BYTES } from '@gw/dto';
import { BLOB_STORE, type BlobStore, transientBlobKey } from '@gw/platform/blobs';
import type { Request } from 'express';
import { Readable, Transform } from 'node:stream';
import { ClientBodyWatch } from '../http/client-body-watch';
import { peek } from '../http/stream-peek';

/** known_speaker_references travel as data URL fields, so a field may hold a few megabytes. */
const MAX_FIELD_BYTES = 8 * 1024 * 1024;
/** Enough of a file's start for detectAudioFormat. */
const AUDIO_SIGNATURE_BYTES = 16;

/** Audio in the blob store, or `not-audio` (nothing stored) when its content is none of the formats. */
export type StagedAudio = TranscriptionAudio | 'not-audio';

/** A multipart transcription request: its fields, and what became of its `file`. */
export interface AudioForm {
  fields: Record<string, string | string[]>;
  /** Undefined without a file part: a text field `file` then names the audio, as in JSON. */
  audio: StagedAudio | undefined;
}

export const audioTooLarge = () =>
  new DomainError(
    'payload_too_large',
    `The audio file is larger than ${MAX_AUDIO_BYTES / 1024 / 1024} MB`,
    'file',
  );

/**
 * Stages transcription audio in the blob store under a transient key, so only the key crosses the
 * bus (claim check): an upload is streamed there as it arrives (never held whole, counted against
 * 25 MB as it passes), bytes the gateway already holds (a data URL, a fetched URL) are written
 * from memory. The controller discards the object when the call ends, whatever its outcome.
 */
@Injectable()
export class AudioStagingService {
  private readonly logger = new Logger('AudioStaging');

  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  /** Reads a multipart body: fields kept, `file` staged; refusals are those multer gave before. */
  async readForm(request: Request): Promise<AudioForm> {
    const fields: Record<string, string | string[]> = {};
    const file: { staged: Promise<StagedAudio> | null } = { staged: null };
    const parsed = new Promise<void>((resolve, reject) => {
      let form: busboy.Busboy;
      try {
        form = busboy({
          headers: request.headers,
          limits: { files: 1, fieldSize: MAX_FIELD_BYTES },
        });
      } catch (err) {
        return reject(new DomainError('invalid_request', (err as Error).message, 'file'));
      }
      form.on('field', (name, value, info) => {
        if (info.valueTruncated) return reject(new DomainError('invalid_request', 'Field value too long'));
        const earlier = fields[name];
        fields[name] =
          earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
      });
      form.on('file', (name, stream, info) => {
        if (name !== 'file') {
          stream.resume();
          return reject(
            new DomainError('invalid_request', 'The audio file must be sent as the field `file`', 'file'),
          );
        }
        file.staged = this.stageStream(stream, info.filename || 'audio');
        // Refused early (too large): stop reading, the answer goes out at once.
        file.staged.catch((err: unknown) => reject(err as Error));
      });
      form.once('filesLimit', () =>
        reject(
          new DomainError('invalid_request', 'Send exactly one audio file, as the field `file`', 'file'),
        ),
      );
      form.once('close', resolve);
      form.once('error', (err: Error) => reject(new DomainError('invalid_request', err.message, 'file')));
      request.pipe(form);
    });
    try {
      await parsed;
      return { fields, audio: (await file.staged) ?? undefined };
    } catch (err) {
      // The rest of the body is discarded as it arrives: a small one is drained and its connection
      // kept, a large one's connection closes after the answer (closeUnlessBodyRead). Left paused, a
      // body half read could neither, and the client saw its connection reset before the answer.
      request.unpipe();
      request.resume();
      await file.staged?.then(
        (audio) => this.discard(audio),
        () => undefined,
      );
      throw err;
    }
  }

  /** Stages bytes already in memory. */
  stageBytes(bytes: Buffer, filename: string): Promise<StagedAudio> {
    return this.stageStream(Readable.from([bytes]), filename);
  }

  /** Deletes a staged object; one that cannot be deleted now is left to the transient sweeper. */
  async discard(audio: AudioForm['audio'] | undefined): Promise<void> {
    if (typeof audio !== 'object') return;
    await this.blobs
      .delete(audio.key)
      .catch((err: unknown) =>
        this.logger.warn(`Staged audio ${audio.key} left for the sweeper: ${(err as Error).message}`),
      );
  }

  private async stageStream(stream: Readable, filename: string): Promise<StagedAudio> {
    const { head, body } = await peek(stream, AUDIO_SIGNATURE_BYTES);
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size <= MAX_AUDIO_BYTES) return done(null, chunk);
        done(audioTooLarge());
      },
    });
    const watch = new ClientBodyWatch(body, counted);
    const format = detectAudioFormat(head);
    if (!format) {
      // Counted all the same: a file too large is a 413 whatever it holds.
      await new Promise<void>((resolve, reject) =>
        body
          .pipe(counted)
          .on('data', () => undefined)
          .once('end', resolve)
          .once('error', reject),
      );
      return 'not-audio';
    }
    const key = transientBlobKey();
    try {
      await this.blobs.put(key, body.pipe(counted), AUDIO_MIME_TYPES[format]);
    } catch (err) {
      throw watch.failure(err, this.logger, 'Staged audio');
    }
    return { key, size, filename: filename.slice(0, 255), format };
  }
}
