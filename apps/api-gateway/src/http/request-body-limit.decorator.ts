import { SetMetadata } from '@nestjs/common';

export const REQUEST_BODY_LIMIT = 'gateway:request-body-limit';

/**
 * The most a route reads of a body, when it takes more than JSON_BODY_LIMIT_BYTES (files, audio); a
 * body declared longer, JSON or multipart, is refused with 413 before anything is read.
 */
export const RequestBodyLimit = (bytes: number) => SetMetadata(REQUEST_BODY_LIMIT, bytes);
