import { UpstreamFailure } from '@gw/paid-generation';
import type { UpstreamStreamEvent } from '../providers/upstream-chat';

export interface FirstOutput {
  /** Every event read so far: up to and with the batch that carries the first output, unless the stream ended first. */
  events: UpstreamStreamEvent[];
  done: boolean;
}

/** Content, reasoning, a tool call or a finish reason: something the client must be told. */
export function carriesOutput(event: UpstreamStreamEvent): boolean {
  return (
    Boolean(event.content) ||
    Boolean(event.reasoningDetails?.length) ||
    Boolean(event.reasoning) ||
    Boolean(event.toolCalls?.length) ||
    Boolean(event.finishReason)
  );
}

/**
 * Reads a provider's stream until the batch with its first output, within `deadlineMs` (none when null). Nothing
 * has reached the client until this resolves, so a failure here, the deadline included, can still
 * fall back to the next provider. On the deadline `onDeadline` runs (it aborts the call) and a
 * retryable timeout is thrown.
 */
export async function awaitFirstOutput(
  iterator: AsyncIterator<UpstreamStreamEvent[]>,
  deadlineMs: number | null,
  onDeadline: () => void,
): Promise<FirstOutput> {
  let timer: NodeJS.Timeout | undefined;
  const deadline =
    deadlineMs === null
      ? null
      : new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            onDeadline();
            reject(new UpstreamFailure('timeout', `The provider produced no output within ${deadlineMs} ms`));
          }, deadlineMs);
        });
  deadline?.catch(() => undefined);
  const events: UpstreamStreamEvent[] = [];
  try {
    for (;;) {
      const next = await (deadline ? Promise.race([iterator.next(), deadline]) : iterator.next());
      if (next.done) return { events, done: true };
      events.push(...next.value);
      if (next.value.some(carriesOutput)) return { events, done: false };
    }
  } finally {
    clearTimeout(timer);
  }
}
