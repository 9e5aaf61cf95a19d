import { Controller } from '@nestjs/common';
import { map, Observable } from 'rxjs';
import { ChatCompletion, ChatCompletionChunk, InferenceContracts } from '@gw/contracts';
import { ChatCompletionRpcMessageDto } from '@gw/dto';
import { HandlesRpc, SendsHeartbeats } from '@gw/platform';
import { ChatCompletionService } from './chat-completion.service';
import { WatchesForGoneCaller } from './gone-caller-watch';

@Controller()
@SendsHeartbeats()
@WatchesForGoneCaller()
export class ChatCompletionHandler {
  constructor(private readonly chat: ChatCompletionService) {}

  @HandlesRpc(InferenceContracts.chatCompletion, ChatCompletionRpcMessageDto)
  complete(message: ChatCompletionRpcMessageDto): Promise<ChatCompletion> {
    return this.chat.complete(message);
  }

  @HandlesRpc(InferenceContracts.chatCompletionStream, ChatCompletionRpcMessageDto)
  stream(message: ChatCompletionRpcMessageDto): Observable<ChatCompletionChunk> {
    return this.chat.stream(message).pipe(map((item) => item.chunk));
  }
}
