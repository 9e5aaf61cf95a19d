import { Controller } from '@nestjs/common';
import { CancelGenerationEvent, InferenceContracts } from '@gw/contracts';
import { HandlesEvent } from '@gw/platform';
import { GenerationCancellations } from './generation-cancellations';

/**
 * Hears every cancellation: an empty queue takes this one subscription out of the service's queue
 * group (Nest uses `extras.queue ?? queue`, and NATS subscribes without a group when it is empty),
 * because only the replica that runs the generation can abort it.
 */
@Controller()
export class GenerationCancelHandler {
  constructor(private readonly cancellations: GenerationCancellations) {}

  @HandlesEvent(InferenceContracts.cancelGeneration, { queue: '' })
  cancel(event: CancelGenerationEvent): void {
    this.cancellations.cancel(event.generationId);
  }
}
