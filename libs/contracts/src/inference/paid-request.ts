import { IsOptional, Matches } from 'class-validator';
import { type Principal, PrincipalField } from '../principal';

/** A generation id as the gateway chooses it: `gen-<uuid>`. */
export const GENERATION_ID = /^gen-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * What every paid request (chat, Responses, Messages, embeddings, transcriptions) carries besides
 * its body: the caller, and the generation id the gateway chose so that it can cancel the
 * generation before the first answer names it. The service makes an id up when it is absent.
 */
export class PaidRequestEnvelope {
  @PrincipalField()
  principal!: Principal;

  @IsOptional()
  @Matches(GENERATION_ID, { message: 'generationId must be gen-<uuid>' })
  generationId?: string;
}
