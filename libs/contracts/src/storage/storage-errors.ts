import { DomainError } from '../errors';

/** The 413s of a file upload, the same whether the gateway or the storage service finds them. */
export function storageQuotaExceeded(): DomainError {
  return new DomainError(
    'storage_quota_exceeded',
    "The organization's storage quota is used up: delete files to make room",
    'file',
  );
}

export function storedFileTooLarge(maxBytes: number): DomainError {
  return new DomainError(
    'payload_too_large',
    `The file is larger than the ${Math.floor(maxBytes / 1024 / 1024)} MB limit`,
    'file',
  );
}
