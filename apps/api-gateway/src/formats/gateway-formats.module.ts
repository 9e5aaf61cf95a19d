import { MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { MessagesController } from './messages.controller';
import { ResponsesController } from './responses.controller';
import { XApiKeyMiddleware } from './x-api-key.middleware';

/** The OpenAI Responses and Anthropic Messages routes. */
@Module({ controllers: [ResponsesController, MessagesController] })
export class GatewayFormatsModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(XApiKeyMiddleware).forRoutes({ path: 'v1/messages', method: RequestMethod.POST });
  }
}
