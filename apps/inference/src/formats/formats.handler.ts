import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import { FormatRequest, FormatsContracts, MessagesResponse, NamedServerSentEvent, ResponsesResponse } from '@gw/contracts';
import { ChatCompletionRequestDto, MessagesRpcMessageDto, ResponsesRpcMessageDto } from '@gw/dto';
import { ChatCompletionService } from '../chat/chat-completion.service';
import { translateStream } from './event-stream';
import { messageFromCompletion, messagesStreamTranslator, messagesToChatBody } from './messages-translation';
import { responseFromCompletion, responsesStreamTranslator, responsesToChatBody } from './responses-translation';

/**
 * The OpenAI Responses and Anthropic Messages APIs: each request is translated into a chat body,
 * run by the chat pipeline under its own apiType (so history tells them apart), and its answer or
 * chunks translated back.
 */
@Controller()
export class FormatsHandler {
  constructor(private readonly chat: ChatCompletionService) {}

  @MessagePattern(FormatsContracts.responses.subject)
  async responses(@Payload() message: ResponsesRpcMessageDto): Promise<ResponsesResponse> {
    const completion = await this.chat.complete(this.chatRequest(message, responsesToChatBody(message.body, false), 'responses'));
    return responseFromCompletion(completion, message.body);
  }

  @MessagePattern(FormatsContracts.responsesStream.subject)
  responsesStream(@Payload() message: ResponsesRpcMessageDto): Observable<NamedServerSentEvent> {
    const chunks = this.chat.stream(this.chatRequest(message, responsesToChatBody(message.body, true), 'responses'));
    return translateStream(chunks, responsesStreamTranslator(message.body));
  }

  @MessagePattern(FormatsContracts.messages.subject)
  async messages(@Payload() message: MessagesRpcMessageDto): Promise<MessagesResponse> {
    const completion = await this.chat.complete(this.chatRequest(message, messagesToChatBody(message.body, false), 'messages'));
    return messageFromCompletion(completion);
  }

  @MessagePattern(FormatsContracts.messagesStream.subject)
  messagesStream(@Payload() message: MessagesRpcMessageDto): Observable<NamedServerSentEvent> {
    const chunks = this.chat.stream(this.chatRequest(message, messagesToChatBody(message.body, true), 'messages'));
    return translateStream(chunks, messagesStreamTranslator());
  }

  private chatRequest(message: FormatRequest, body: ChatCompletionRequestDto, apiType: 'responses' | 'messages') {
    return { principal: message.principal, body, apiType, ...(message.generationId ? { generationId: message.generationId } : {}) };
  }
}
