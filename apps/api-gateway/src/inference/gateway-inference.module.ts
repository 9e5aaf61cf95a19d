import { Module } from '@nestjs/common';
import { ChatCompletionsController } from './chat-completions.controller';
import { ModelsController } from './models.controller';

@Module({ controllers: [ChatCompletionsController, ModelsController] })
export class GatewayInferenceModule {}
