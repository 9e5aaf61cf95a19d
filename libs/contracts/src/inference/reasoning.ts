/**
 * A provider's reasoning as OpenRouter returns it in `reasoning_details`, the one shape every API
 * of the gateway translates from and to: visible reasoning (`reasoning.text`, signed where the
 * provider signs it), reasoning the provider hid (`reasoning.encrypted`) and a summary of it
 * (`reasoning.summary`). `format` names the provider family whose wire can take the item back;
 * `index` orders the items of one answer and joins the pieces of one item in a stream.
 */
export type ReasoningDetail = ReasoningTextDetail | ReasoningEncryptedDetail | ReasoningSummaryDetail;

interface ReasoningDetailBase {
  id?: string | null;
  format?: ReasoningFormat;
  index?: number;
}

export interface ReasoningTextDetail extends ReasoningDetailBase {
  type: 'reasoning.text';
  text?: string;
  signature?: string | null;
}

export interface ReasoningEncryptedDetail extends ReasoningDetailBase {
  type: 'reasoning.encrypted';
  data: string;
}

export interface ReasoningSummaryDetail extends ReasoningDetailBase {
  type: 'reasoning.summary';
  summary: string;
}

export const REASONING_DETAIL_TYPES = ['reasoning.text', 'reasoning.encrypted', 'reasoning.summary'] as const;

/** OpenRouter's format names; Anthropic's thinking blocks are `anthropic-claude-v1`, OpenAI's reasoning items `openai-responses-v1`. */
export type ReasoningFormat =
  | 'anthropic-claude-v1'
  | 'openai-responses-v1'
  | 'google-gemini-v1'
  | 'xai-responses-v1'
  | 'unknown'
  | (string & {});

export const ANTHROPIC_REASONING_FORMAT = 'anthropic-claude-v1';
export const OPENAI_RESPONSES_REASONING_FORMAT = 'openai-responses-v1';

/**
 * Streamed pieces of reasoning put together: the pieces of one index are one item (texts, summaries
 * and data appended, a signature or id set), in the order their indexes first appeared.
 */
export function mergeReasoningDetails(pieces: ReasoningDetail[]): ReasoningDetail[] {
  const items = new Map<number, ReasoningDetail>();
  pieces.forEach((piece, position) => {
    const key = piece.index ?? position;
    const item = items.get(key);
    if (!item || item.type !== piece.type) {
      items.set(key, { ...piece });
      return;
    }
    if (piece.id) item.id = piece.id;
    if (piece.format) item.format = piece.format;
    if (item.type === 'reasoning.text' && piece.type === 'reasoning.text') {
      if (piece.text) item.text = (item.text ?? '') + piece.text;
      if (piece.signature) item.signature = piece.signature;
    }
    if (item.type === 'reasoning.encrypted' && piece.type === 'reasoning.encrypted') item.data += piece.data;
    if (item.type === 'reasoning.summary' && piece.type === 'reasoning.summary')
      item.summary += piece.summary;
  });
  return [...items.values()];
}

/** The reasoning's readable text: what `reasoning` carries next to `reasoning_details`. */
export function reasoningText(details: ReasoningDetail[]): string {
  return details
    .map((detail) =>
      detail.type === 'reasoning.text'
        ? (detail.text ?? '')
        : detail.type === 'reasoning.summary'
          ? detail.summary
          : '',
    )
    .join('');
}
