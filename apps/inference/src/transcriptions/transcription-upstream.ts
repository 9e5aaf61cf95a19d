import { Agent, FormData, request } from 'undici';
import type { TranscriptionParams, TranscriptionSegment, TranscriptionWord } from '@gw/contracts';
import { UpstreamFailure } from '../providers/upstream-chat';
import { toUpstreamFailure } from '../providers/upstream-http';

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

/** The OpenAI wire's `POST /audio/transcriptions`, as multipart with `name[]` array fields. */
export class TranscriptionUpstream {
  private readonly agent: Agent;

  constructor(private readonly timeoutMs: number) {
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: 64, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  }

  async transcribe(call: UpstreamTranscriptionCall): Promise<UpstreamTranscription> {
    const form = upstreamForm(call);
    let response;
    try {
      response = await request(`${call.baseUrl}/audio/transcriptions`, {
        method: 'POST',
        headers: call.apiKey ? { authorization: `Bearer ${call.apiKey}` } : {},
        body: form,
        dispatcher: this.agent,
        signal: call.signal,
      });
    } catch (err) {
      throw toUpstreamFailure(err);
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      const text = await response.body.text().catch(() => '');
      throw new UpstreamFailure('status', `Upstream answered ${response.statusCode}: ${text.slice(0, 300)}`, response.statusCode);
    }
    let body: unknown;
    try {
      body = await response.body.json();
    } catch (err) {
      throw err instanceof SyntaxError ? new UpstreamFailure('protocol', 'Upstream answered invalid JSON') : toUpstreamFailure(err);
    }
    if (typeof (body as UpstreamTranscription)?.text !== 'string') throw new UpstreamFailure('protocol', 'Upstream answered a transcription without text');
    return body as UpstreamTranscription;
  }

  close(): Promise<void> {
    return this.agent.close();
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
  for (const reference of params.known_speaker_references ?? []) form.append('known_speaker_references[]', reference);
  return form;
}
