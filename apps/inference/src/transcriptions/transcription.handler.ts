import { Controller } from '@nestjs/common';
import { TranscriptionContracts, TranscriptionReply } from '@gw/contracts';
import { TranscriptionRpcMessageDto } from '@gw/dto';
import { HandlesRpc, SendsHeartbeats } from '@gw/platform';
import { omitNullFields } from '../formats/omit-null-fields';
import { TranscriptionService } from './transcription.service';
import { WatchesForGoneCaller } from '../chat/gone-caller-watch';

@Controller()
@SendsHeartbeats()
@WatchesForGoneCaller()
export class TranscriptionHandler {
  constructor(private readonly transcriptions: TranscriptionService) {}

  @HandlesRpc(TranscriptionContracts.transcribe, TranscriptionRpcMessageDto)
  transcribe(message: TranscriptionRpcMessageDto): Promise<TranscriptionReply> {
    return this.transcriptions.transcribe({ ...message, params: omitNullFields(message.params) });
  }
}
