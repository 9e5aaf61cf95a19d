import { type PipeTransform, type ValidationPipe } from '@nestjs/common';
import { DomainError, type MessageClass } from '@gw/contracts';
import { builtByItsCaller } from '../transport/in-process-bus';
import { createValidationPipe } from './validation';

/**
 * Validates a NATS (or in-process) message against one class, whatever type the handler's
 * parameter was declared with: Nest's own pipe skips a parameter whose emitted type is `Object`,
 * which is what an interface or a type alias compiles to. A message the in-process bus delivered
 * from a sender that built it passes as it came (decision 191).
 */
export class MessageValidationPipe implements PipeTransform<unknown, Promise<object>> {
  private readonly pipe: ValidationPipe;

  constructor(
    private readonly messageClass: MessageClass,
    unknownFields: 'refuse' | 'strip' = 'refuse',
  ) {
    this.pipe = createValidationPipe(unknownFields);
  }

  async transform(value: unknown): Promise<object> {
    if (builtByItsCaller(value)) return value as object;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new DomainError('invalid_request', 'The message must be a JSON object');
    }
    return (await this.pipe.transform(value, {
      type: 'body',
      metatype: this.messageClass,
      data: undefined,
    })) as object;
  }
}
