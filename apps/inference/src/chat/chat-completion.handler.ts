import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { map, Observable } from 'rxjs';
import { ChatCompletion, ChatCompletionChunk, InferenceContracts } from '@gw/contracts';
import { ChatCompletionRpcMessageDto } from '@gw/dto';
import { ChatCompletionService } from './chat-completion.service';

@Controller()
export class ChatCompletionHandler {
  constructor(private readonly chat: ChatCompletionService) {}

  @MessagePattern(InferenceContracts.chatCompletion.subject)
  complete(@Payload() message: ChatCompletionRpcMessageDto): Promise<ChatCompletion> {
    return this.chat.complete(message);
  }

  @MessagePattern(InferenceContracts.chatCompletionStream.subject)
  stream(@Payload() message: ChatCompletionRpcMessageDto): Observable<ChatCompletionChunk> {
    return this.chat.stream(message).pipe(map((item) => item.chunk));
  }
}
