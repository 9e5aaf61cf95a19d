import { UpstreamFailure } from '@gw/paid-generation';
import type { UpstreamStreamEvent } from '../providers/upstream-chat';
import { awaitFirstOutput } from './first-output';

/** A provider's stream as batches of events, with pauses (milliseconds) between them. */
async function* batches(list: Array<UpstreamStreamEvent[] | number>): AsyncGenerator<UpstreamStreamEvent[]> {
  for (const item of list) {
    if (typeof item === 'number') await new Promise((resolve) => setTimeout(resolve, item));
    else yield item;
  }
}

describe('awaitFirstOutput', () => {
  it('reads past batches without output up to the batch with the first output, which it keeps whole', async () => {
    const iterator = batches([
      [{}],
      [{ usage: { prompt_tokens: 1, completion_tokens: 0 } }],
      [{ content: 'hi' }, { content: 'there' }],
      [{ content: 'later' }],
    ])[Symbol.asyncIterator]();
    const head = await awaitFirstOutput(iterator, 1_000, () => undefined);
    expect(head).toEqual({
      events: [
        {},
        { usage: { prompt_tokens: 1, completion_tokens: 0 } },
        { content: 'hi' },
        { content: 'there' },
      ],
      done: false,
    });
    expect((await iterator.next()).value).toEqual([{ content: 'later' }]);
  });

  it('counts a finish reason or a tool call as output and reports a stream that ended first', async () => {
    expect(
      (
        await awaitFirstOutput(
          batches([[{ finishReason: 'content_filter' }]])[Symbol.asyncIterator](),
          1_000,
          () => undefined,
        )
      ).events,
    ).toHaveLength(1);
    expect(
      (
        await awaitFirstOutput(
          batches([[{}, { toolCalls: [{ index: 0 }] }]])[Symbol.asyncIterator](),
          1_000,
          () => undefined,
        )
      ).done,
    ).toBe(false);
    expect(await awaitFirstOutput(batches([[{}]])[Symbol.asyncIterator](), 1_000, () => undefined)).toEqual({
      events: [{}],
      done: true,
    });
  });

  it('gives up at the deadline with a retryable timeout and calls onDeadline', async () => {
    const onDeadline = jest.fn();
    const error = await awaitFirstOutput(
      batches([[{}], 500, [{ content: 'too late' }]])[Symbol.asyncIterator](),
      50,
      onDeadline,
    ).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UpstreamFailure);
    expect(error).toMatchObject({ kind: 'timeout', retryable: true });
    expect(onDeadline).toHaveBeenCalledTimes(1);
  });
});
