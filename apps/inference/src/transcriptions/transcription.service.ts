import { Inject, Injectable } from '@nestjs/common';
import Decimal from 'decimal.js';
import { randomUUID } from 'node:crypto';
import { DomainError, TranscriptionReply } from '@gw/contracts';
import {
  AUDIO_MIME_TYPES,
  detectAudioFormat,
  TranscriptionAudioDto,
  TranscriptionRpcMessageDto,
} from '@gw/dto';
import { BLOB_STORE, type BlobStore } from '@gw/platform/blobs';
import { roundCost, sttCost } from '@gw/pricing';
import type { CatalogueModel, ModelEndpoint } from '@gw/catalogue';
import { ModelCatalogue } from '@gw/catalogue';
import {
  GenerationBilling,
  type GenerationHold,
  tracedModelCall,
  tryProvidersInOrder,
} from '@gw/paid-generation';
import { audioDuration, AudioDuration } from './audio-duration';
import { checkTranscriptionParams, transcriptionCapabilities } from './transcription-rules';
import { billedDuration, transcriptionReply, transcriptionUsage } from './transcription-result';
import { TranscriptionUpstream } from './transcription-upstream';

const TRANSCRIPTION_ENDPOINT: ModelEndpoint = '/v1/audio/transcriptions';

const stagedAudioGone = () =>
  new DomainError('invalid_request', 'The audio file is no longer available; send it again', 'file');

/**
 * One transcription: resolve the model, reserve the cost of the longest the audio can be, call the
 * providers in order until one answers, and settle the cost of the duration heard through the
 * durable GenerationFinishedEvent (requestType `audio`, apiType `transcriptions`).
 */
@Injectable()
export class TranscriptionService {
  constructor(
    private readonly catalogue: ModelCatalogue,
    private readonly upstream: TranscriptionUpstream,
    private readonly billing: GenerationBilling,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  async transcribe(message: TranscriptionRpcMessageDto): Promise<TranscriptionReply> {
    const model = this.model(message.params.model);
    const audio = await this.stagedAudio(message.audio);
    // The gateway checked the content already; a message from elsewhere must not reach a provider unchecked.
    if (detectAudioFormat(audio) !== message.audio.format)
      throw new DomainError('invalid_request', 'The file is not audio in a supported format', 'file');
    // Read before any rule or reservation: a file contradicting itself is refused here.
    const duration = audioDuration(audio, message.audio.format);
    const capabilities = transcriptionCapabilities(model.entry);
    checkTranscriptionParams(message.params, model.entry.id, capabilities, duration.stated ?? duration.lower);
    const hold = await this.reserve(message, model, duration);
    const end = await tryProvidersInOrder({ routes: model.routes, attempts: hold.attempts }, (route) =>
      // Speech to text: GenAI's conventions have no narrower operation than generate_content for it.
      tracedModelCall('generate_content', route, { output_type: 'text' }, () =>
        this.upstream.transcribe({
          baseUrl: route.baseUrl,
          apiKey: route.apiKey,
          upstreamModel: route.upstreamModel,
          audio,
          filename: message.audio.filename,
          mimeType: AUDIO_MIME_TYPES[message.audio.format],
          params: message.params,
          upstreamFormat: capabilities.diarizing
            ? 'diarized_json'
            : message.params.include?.length
              ? 'json'
              : 'verbose_json',
        }),
      ),
    );
    if (end.outcome === 'exhausted') throw await hold.fail(end.failure);
    const { route, value: upstream } = end;
    hold.markFirstOutput();
    const billed = billedDuration(upstream, duration);
    // The duration's cost on the provider that answered; no token usage for audio.
    const cost = hold.capped(sttCost(route.pricing, billed));
    await hold.finish({
      status: 'completed',
      provider: route.name,
      finishReason: 'stop',
      usage: null,
      cost,
      error: null,
    });
    return transcriptionReply(
      hold.generationId,
      model.entry.id,
      message.params,
      upstream,
      transcriptionUsage(billed, cost),
    );
  }

  /**
   * The bytes the gateway staged. Read whole once: the length parsers walk the file's structure, and
   * a provider fallback sends the same bytes again; the gateway deletes the object when the call ends.
   */
  private async stagedAudio(audio: TranscriptionAudioDto): Promise<Buffer> {
    const object = await this.blobs.get(audio.key);
    // Copied into one buffer of the announced size as the chunks arrive: the file is held once, not twice.
    const bytes = Buffer.allocUnsafe(audio.size);
    let offset = 0;
    if (object && object.size === audio.size)
      for await (const chunk of object.body as AsyncIterable<Buffer>) {
        if (offset + chunk.length > bytes.length) break;
        offset += chunk.copy(bytes, offset);
      }
    object?.body.destroy();
    if (offset !== bytes.length) throw stagedAudioGone();
    return bytes;
  }

  /** The named model, or the catalogue's first transcription model: the classic one in the demo catalogue. */
  private model(id: string | undefined): CatalogueModel {
    if (id === undefined) {
      const first = this.catalogue.list({ endpoint: TRANSCRIPTION_ENDPOINT }).data[0];
      if (!first) throw new DomainError('no_provider_available', 'No transcription model is configured');
      return this.catalogue.servingModel(first.id, TRANSCRIPTION_ENDPOINT);
    }
    return this.catalogue.servingModel(id, TRANSCRIPTION_ENDPOINT);
  }

  /** Holds the cost of the longest the audio can be on the dearest provider; at least that of the shortest on the cheapest. */
  private reserve(
    message: TranscriptionRpcMessageDto,
    model: CatalogueModel,
    duration: AudioDuration,
  ): Promise<GenerationHold> {
    const maxAmount = Decimal.max(...model.routes.map((route) => sttCost(route.pricing, duration.upper)));
    const minAmount = Decimal.min(...model.routes.map((route) => sttCost(route.pricing, duration.lower)));
    return this.billing.open(
      {
        generationId: message.generationId ?? `gen-${randomUUID()}`,
        principal: message.principal,
        model: model.entry.id,
        modelDisplayName: model.entry.name,
        requestType: 'audio',
        apiType: 'transcriptions',
        responseMode: 'sync',
        startedAt: new Date(),
      },
      { maxAmount: roundCost(maxAmount), minAmount: roundCost(minAmount) },
    );
  }
}
