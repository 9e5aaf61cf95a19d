import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsOptional, IsString, Matches, ValidateNested } from 'class-validator';
import type { ChatCompletionRequest, Principal } from '@gw/contracts';
import { ChatCompletionRequestDto } from './chat-completion-request.dto';

/** The NATS message of a chat completion, validated again on the service side. The principal comes from the gateway. */
export class ChatCompletionRpcMessageDto implements ChatCompletionRequest {
  @IsObject()
  principal!: Principal;

  @ValidateNested()
  @Type(() => ChatCompletionRequestDto)
  body!: ChatCompletionRequestDto;

  @IsString()
  @IsNotEmpty()
  apiType!: string;

  @IsOptional()
  @Matches(/^gen-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, { message: 'generationId must be gen-<uuid>' })
  generationId?: string;
}
