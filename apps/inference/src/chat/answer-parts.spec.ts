import { AnswerParts } from './answer-parts';

describe('AnswerParts', () => {
  it('joins streamed text', () => {
    const parts = new AnswerParts();
    [{ content: 'one' }, { finishReason: 'stop' }, { content: ' two' }].forEach((e) => parts.add(e));
    expect([parts.content, parts.toolCalls]).toEqual(['one two', []]);
  });

  it('answers an empty text for an answer without output, and null beside tool calls only', () => {
    const empty = new AnswerParts();
    empty.add({ finishReason: 'content_filter' });
    expect(empty.content).toBe('');
    const tools = new AnswerParts();
    tools.add({
      toolCalls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }],
    });
    expect(tools.content).toBeNull();
  });

  it('puts tool calls together from their deltas, by index', () => {
    const parts = new AnswerParts();
    parts.add({
      toolCalls: [
        { index: 0, id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '' } },
        { index: 1, id: 'call_b', type: 'function', function: { name: 'save', arguments: '{"x"' } },
      ],
    });
    parts.add({ toolCalls: [{ index: 0, function: { arguments: '{"q":' } }] });
    parts.add({
      toolCalls: [
        { index: 0, function: { arguments: '"hi"}' } },
        { index: 1, function: { arguments: ':1}' } },
      ],
    });
    expect(parts.toolCalls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"q":"hi"}' } },
      { id: 'call_b', type: 'function', function: { name: 'save', arguments: '{"x":1}' } },
    ]);
  });
});
