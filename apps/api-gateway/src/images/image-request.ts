import type { CreateMediaGenerationRequest, MediaGeneration, Principal } from '@gw/contracts';
import type { ImageGenerationRequestDto, PendingGenerationDto } from '@gw/dto';

/**
 * The images API's request as a media generation: its image fields are the model's params (the
 * media service checks them against the model's descriptors, `n` 1 for the older model, its 4000
 * characters, `style` on it alone), `user` keeps the result files for that end user, and
 * `response_format` is the gateway's choice of how to answer, not the model's.
 */
export function imageGenerationRequest(
  principal: Principal,
  body: ImageGenerationRequestDto,
): CreateMediaGenerationRequest {
  const { model, response_format: _answerFormat, user, ...fields } = body;
  const params = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  );
  return {
    principal,
    model,
    params,
    async: false,
    surface: 'images',
    ...(user !== undefined && user !== null ? { externalUserId: user } : {}),
  };
}

/** The interface's pending record of an image not finished in time: `pending` whatever stage its job is at. */
export function pendingRecord(generation: MediaGeneration): PendingGenerationDto {
  return { id: generation.id, status: 'pending', model: generation.model, created: generation.created };
}
