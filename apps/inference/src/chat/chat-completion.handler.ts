import { Controller } from '@nestjs/common';
import { Ctx } from '@nestjs/microservices';
import { map, Observable } from 'rxjs';
import { ChatCompletion, ChatCompletionChunk, InferenceContracts } from '@gw/contracts';
import { ChatCompletionRpcMessageDto } from '@gw/dto';
import { type HandedFrames, HandlesRpc, replyFrames, SendsHeartbeats } from '@gw/platform';
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
  stream(
    message: ChatCompletionRpcMessageDto,
    @Ctx() context: unknown,
  ): Observable<ChatCompletionChunk | HandedFrames<ChatCompletionChunk>> {
    return replyFrames(context, this.chat.stream(message).pipe(map((item) => item.chunk)));
  }
}
