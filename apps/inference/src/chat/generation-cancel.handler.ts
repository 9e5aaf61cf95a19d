import { Controller } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CancelGenerationEvent, InferenceContracts } from '@gw/contracts';
import { GenerationCancellations } from './generation-cancellations';

/**
 * Hears every cancellation: an empty queue takes this one subscription out of the service's queue
 * group (Nest uses `extras.queue ?? queue`, and NATS subscribes without a group when it is empty),
 * because only the replica that runs the generation can abort it.
 */
@Controller()
export class GenerationCancelHandler {
  constructor(private readonly cancellations: GenerationCancellations) {}

  @EventPattern<string>(InferenceContracts.cancelGeneration.subject, { queue: '' })
  cancel(@Payload() event: CancelGenerationEvent): void {
    if (typeof event?.generationId === 'string') this.cancellations.cancel(event.generationId);
  }
}
