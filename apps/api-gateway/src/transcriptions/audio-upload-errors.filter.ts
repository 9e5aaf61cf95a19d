import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { DomainError } from '@gw/contracts';
import { MAX_AUDIO_BYTES } from '@gw/dto';
import { HttpErrorFilter } from '@gw/platform';

/** multer's refusals of the upload itself, as Nest words them, and what the client is told instead. */
const UPLOAD_REFUSALS: Record<string, () => DomainError> = {
  'File too large': () =>
    new DomainError(
      'payload_too_large',
      `The audio file is larger than ${MAX_AUDIO_BYTES / 1024 / 1024} MB`,
      'file',
    ),
  'Too many files': () =>
    new DomainError('invalid_request', 'Send exactly one audio file, as the field `file`', 'file'),
  'Unexpected file field': () =>
    new DomainError('invalid_request', 'The audio file must be sent as the field `file`', 'file'),
};

/** Names `file` in the envelope of an upload refused by multer, which Nest reports without a field. */
@Catch(HttpException)
export class AudioUploadErrorsFilter implements ExceptionFilter {
  private readonly envelope = new HttpErrorFilter();

  catch(exception: HttpException, host: ArgumentsHost): void {
    const refusal = UPLOAD_REFUSALS[exception.message];
    this.envelope.catch(refusal ? refusal() : exception, host);
  }
}
