import { Module } from '@nestjs/common';
import { TranscriptionInputService } from './transcription-input.service';
import { TranscriptionsController } from './transcriptions.controller';

@Module({ controllers: [TranscriptionsController], providers: [TranscriptionInputService] })
export class GatewayTranscriptionsModule {}
