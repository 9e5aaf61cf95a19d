import { ChatCompletionRequest } from '@gw/contracts';
import { NestedObject } from '../common/nested-object';
import { ChatCompletionRequestDto } from './chat-completion-request.dto';

/** The contract's chat message with its body checked by the public API's rules, as the service validates it. */
export class ChatCompletionRpcMessageDto extends ChatCompletionRequest {
  @NestedObject(() => ChatCompletionRequestDto)
  override body!: ChatCompletionRequestDto;
}
