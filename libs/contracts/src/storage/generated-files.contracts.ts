import { IsIn, IsInt, IsString, IsUUID, Matches, MaxLength, Min, ValidateIf } from 'class-validator';
import { rpc } from '../contract';
import { type StoragePolicy, type StoredFile, type UploadSlot } from './storage.contracts';

/** What a service that generates files may keep them as (DESIGN.md §5.5); TEMP_UPLOAD is the clients'. */
export const GENERATION_POLICIES = [
  'TEMP_GENERATION',
  'PERMANENT',
] as const satisfies readonly StoragePolicy[];
export type GenerationPolicy = (typeof GENERATION_POLICIES)[number];

/** A generated file is an image, a video or a sound; its content type says which. */
export const GENERATED_CONTENT_TYPE = /^(image|video|audio)\/[\w.+-]+$/;

/**
 * Claim check for files a service generates (the media service): the same pending → stored life as
 * an upload (docs/decisions.md 72, 115). The producer asks for a slot, which records an
 * `AI_GENERATION` intent of the organization before any byte is written; writes the bytes through
 * the blob store under the slot's key; then registers what it wrote, or aborts. Only the key and
 * what describes the object cross the bus. `GeneratedFileWriter` (@gw/platform/blobs) does all three.
 */
export class BeginGeneratedFileRequest {
  @IsUUID()
  organizationId!: string;
}

export class RegisterGeneratedFileRequest {
  @IsUUID()
  organizationId!: string;

  /** The slot's key, where the bytes now are. */
  @IsString()
  @MaxLength(80)
  objectKey!: string;

  /** What the producer wrote; the service checks it against the stored object. */
  @IsInt()
  @Min(0)
  size!: number;

  @IsString()
  @Matches(GENERATED_CONTENT_TYPE)
  contentType!: string;

  @IsIn(GENERATION_POLICIES)
  storagePolicy!: GenerationPolicy;

  @ValidateIf((_request, value) => value !== null)
  @IsString()
  @MaxLength(128)
  externalUserId!: string | null;
}

export class AbortGeneratedFileRequest {
  @IsUUID()
  organizationId!: string;

  @IsString()
  @MaxLength(80)
  objectKey!: string;
}

export const GeneratedFileContracts = {
  begin: rpc<BeginGeneratedFileRequest, UploadSlot>(
    'storage.v1.begin-generated-file',
    BeginGeneratedFileRequest,
  ),
  register: rpc<RegisterGeneratedFileRequest, StoredFile>(
    'storage.v1.register-generated-file',
    RegisterGeneratedFileRequest,
  ),
  abort: rpc<AbortGeneratedFileRequest, { success: true }>(
    'storage.v1.abort-generated-file',
    AbortGeneratedFileRequest,
  ),
} as const;
