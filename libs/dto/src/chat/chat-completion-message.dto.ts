import { IsNotEmpty, IsObject, IsOptional, IsString, Matches } from 'class-validator';
import type { ChatCompletionRequest, Principal } from '@gw/contracts';
import { NestedObject } from '../common/nested-object';
import { GENERATION_ID } from '../responses/generation-id';
import { ChatCompletionRequestDto } from './chat-completion-request.dto';

/** The NATS message of a chat completion, validated again on the service side. The principal comes from the gateway. */
export class ChatCompletionRpcMessageDto implements ChatCompletionRequest {
  @IsObject()
  principal!: Principal;

  @NestedObject(() => ChatCompletionRequestDto)
  body!: ChatCompletionRequestDto;

  @IsString()
  @IsNotEmpty()
  apiType!: string;

  @IsOptional()
  @Matches(GENERATION_ID, { message: 'generationId must be gen-<uuid>' })
  generationId?: string;
}
