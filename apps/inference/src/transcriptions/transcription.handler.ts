import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { TranscriptionContracts, TranscriptionReply } from '@gw/contracts';
import { TranscriptionRpcMessageDto } from '@gw/dto';
import { omitNullFields } from '../formats/omit-null-fields';
import { TranscriptionService } from './transcription.service';

@Controller()
export class TranscriptionHandler {
  constructor(private readonly transcriptions: TranscriptionService) {}

  @MessagePattern(TranscriptionContracts.transcribe.subject)
  transcribe(@Payload() message: TranscriptionRpcMessageDto): Promise<TranscriptionReply> {
    return this.transcriptions.transcribe({ ...message, params: omitNullFields(message.params) });
  }
}
