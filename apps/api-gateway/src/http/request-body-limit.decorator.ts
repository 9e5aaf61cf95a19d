import { SetMetadata } from '@nestjs/common';

export const REQUEST_BODY_LIMIT = 'gateway:request-body-limit';

/** The most a route reads of a JSON body, when it takes more than JSON_BODY_LIMIT_BYTES (files, audio). */
export const RequestBodyLimit = (bytes: number) => SetMetadata(REQUEST_BODY_LIMIT, bytes);
