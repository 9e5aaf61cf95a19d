import { Controller } from '@nestjs/common';
import { Ctx } from '@nestjs/microservices';
import { catchError, defer, Observable, throwError } from 'rxjs';
import {
  DomainError,
  FormatRequest,
  FormatsContracts,
  MessagesResponse,
  NamedServerSentEvent,
  ResponsesResponse,
} from '@gw/contracts';
import { ChatCompletionRequestDto, MessagesRpcMessageDto, ResponsesRpcMessageDto } from '@gw/dto';
import { type HandedFrames, HandlesRpc, replyFrames, SendsHeartbeats } from '@gw/platform';
import { ChatCompletionService } from '../chat/chat-completion.service';
import { WatchesForGoneCaller } from '../chat/gone-caller-watch';
import { translateStream } from './event-stream';
import { messageFromCompletion, messagesStreamTranslator, messagesToChatBody } from './messages-translation';
import {
  responseFromCompletion,
  responsesParam,
  responsesStreamTranslator,
  responsesToChatBody,
} from './responses-translation';

/**
 * The OpenAI Responses and Anthropic Messages APIs: each request is translated into a chat body,
 * run by the chat pipeline under its own apiType (so history tells them apart), and its answer or
 * chunks translated back. Streams are deferred so that a request refused while translating fails
 * the stream like any refusal before the first event.
 */
@Controller()
@SendsHeartbeats()
@WatchesForGoneCaller()
export class FormatsHandler {
  constructor(private readonly chat: ChatCompletionService) {}

  @HandlesRpc(FormatsContracts.responses, ResponsesRpcMessageDto)
  async responses(message: ResponsesRpcMessageDto): Promise<ResponsesResponse> {
    try {
      const completion = await this.chat.complete(
        this.chatRequest(message, responsesToChatBody(message.body, false), 'responses'),
      );
      return responseFromCompletion(completion, message.body);
    } catch (err) {
      throw inResponsesTerms(err);
    }
  }

  @HandlesRpc(FormatsContracts.responsesStream, ResponsesRpcMessageDto)
  responsesStream(
    message: ResponsesRpcMessageDto,
    @Ctx() context: unknown,
  ): Observable<NamedServerSentEvent | HandedFrames<NamedServerSentEvent>> {
    const events = defer(() => {
      const items = this.chat.stream(
        this.chatRequest(message, responsesToChatBody(message.body, true), 'responses'),
      );
      return translateStream(items, responsesStreamTranslator(message.body));
    }).pipe(catchError((err: unknown) => throwError(() => inResponsesTerms(err))));
    return replyFrames(context, events);
  }

  @HandlesRpc(FormatsContracts.messages, MessagesRpcMessageDto)
  async messages(message: MessagesRpcMessageDto): Promise<MessagesResponse> {
    const completion = await this.chat.complete(
      this.chatRequest(message, messagesToChatBody(message.body, false), 'messages'),
    );
    return messageFromCompletion(completion);
  }

  @HandlesRpc(FormatsContracts.messagesStream, MessagesRpcMessageDto)
  messagesStream(
    message: MessagesRpcMessageDto,
    @Ctx() context: unknown,
  ): Observable<NamedServerSentEvent | HandedFrames<NamedServerSentEvent>> {
    const events = defer(() =>
      translateStream(
        this.chat.stream(this.chatRequest(message, messagesToChatBody(message.body, true), 'messages')),
        messagesStreamTranslator(),
      ),
    );
    return replyFrames(context, events);
  }

  private chatRequest(
    message: FormatRequest,
    body: ChatCompletionRequestDto,
    apiType: 'responses' | 'messages',
  ) {
    return {
      principal: message.principal,
      body,
      apiType,
      ...(message.generationId ? { generationId: message.generationId } : {}),
    };
  }
}

/** A refusal by the chat pipeline names chat fields; a Responses client sent their Responses counterparts. */
function inResponsesTerms(err: unknown): unknown {
  return err instanceof DomainError ? new DomainError(err.code, err.message, responsesParam(err.param)) : err;
}
