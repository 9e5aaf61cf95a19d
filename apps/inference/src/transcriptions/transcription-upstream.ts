import { FormData } from 'undici';
import type { TranscriptionParams, TranscriptionSegment, TranscriptionWord } from '@gw/contracts';
import { UpstreamFailure } from '@gw/paid-generation';
import { type UpstreamHttp } from '../providers/upstream-http';

/** What an OpenAI-wire provider answers for json, verbose_json or diarized_json (the fields used here). */
export interface UpstreamTranscription {
  text: string;
  language?: string;
  duration?: number;
  segments?: TranscriptionSegment[];
  words?: TranscriptionWord[];
  logprobs?: unknown[];
  usage?: { type?: string; seconds?: number };
}

export interface UpstreamTranscriptionCall {
  baseUrl: string;
  apiKey: string | null;
  upstreamModel: string;
  audio: Buffer;
  filename: string;
  mimeType: string;
  params: TranscriptionParams;
  /**
   * verbose_json for the classic models, diarized_json for the diarizing one: the client's format is
   * rendered from it. json only where logprobs are asked for, which providers give with json alone.
   */
  upstreamFormat: 'json' | 'verbose_json' | 'diarized_json';
  signal?: AbortSignal;
}

/** The OpenAI wire's `POST /audio/transcriptions`, as multipart with `name[]` array fields, on the shared connection pool. */
export class TranscriptionUpstream {
  constructor(private readonly http: UpstreamHttp) {}

  async transcribe(call: UpstreamTranscriptionCall): Promise<UpstreamTranscription> {
    const headers: Record<string, string> = call.apiKey ? { authorization: `Bearer ${call.apiKey}` } : {};
    const response = await this.http.postForm(
      `${call.baseUrl}/audio/transcriptions`,
      headers,
      upstreamForm(call),
      call.signal,
    );
    const body = await this.http.json<UpstreamTranscription>(response);
    if (typeof body?.text !== 'string')
      throw new UpstreamFailure('protocol', 'Upstream answered a transcription without text');
    return body;
  }
}

export function upstreamForm(call: UpstreamTranscriptionCall): FormData {
  const { params } = call;
  const form = new FormData();
  form.append('file', new Blob([call.audio], { type: call.mimeType }), call.filename);
  form.append('model', call.upstreamModel);
  form.append('response_format', call.upstreamFormat);
  if (params.language !== undefined) form.append('language', params.language);
  if (params.prompt !== undefined) form.append('prompt', params.prompt);
  if (params.temperature !== undefined) form.append('temperature', String(params.temperature));
  if (params.chunking_strategy !== undefined) form.append('chunking_strategy', params.chunking_strategy);
  // Segments are always asked for: srt and vtt are rendered from them.
  if (call.upstreamFormat === 'verbose_json') {
    const granularities = new Set(['segment', ...(params.timestamp_granularities ?? [])]);
    for (const granularity of granularities) form.append('timestamp_granularities[]', granularity);
  }
  for (const item of params.include ?? []) form.append('include[]', item);
  for (const name of params.known_speaker_names ?? []) form.append('known_speaker_names[]', name);
  for (const reference of params.known_speaker_references ?? [])
    form.append('known_speaker_references[]', reference);
  return form;
}
