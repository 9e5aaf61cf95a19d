import { AnswerParts } from './answer-parts';

describe('AnswerParts', () => {
  it("puts each reasoning item together from its pieces, a thinking block's signature with its text", () => {
    const parts = new AnswerParts();
    const format = 'anthropic-claude-v1';
    [
      {
        reasoning: 'Let me ',
        reasoningDetails: [{ type: 'reasoning.text' as const, text: 'Let me ', format, index: 0 }],
      },
      {
        reasoning: 'think.',
        reasoningDetails: [{ type: 'reasoning.text' as const, text: 'think.', format, index: 0 }],
      },
      { reasoningDetails: [{ type: 'reasoning.text' as const, signature: 'sig==', format, index: 0 }] },
      { reasoningDetails: [{ type: 'reasoning.encrypted' as const, data: 'EmwK', format, index: 1 }] },
      { content: 'done' },
    ].forEach((e) => parts.add(e));
    expect(parts.reasoning).toEqual({
      reasoning: 'Let me think.',
      reasoning_details: [
        { type: 'reasoning.text', text: 'Let me think.', signature: 'sig==', format, index: 0 },
        { type: 'reasoning.encrypted', data: 'EmwK', format, index: 1 },
      ],
    });
    expect(parts.content).toBe('done');
  });

  it('has no reasoning fields for an answer without reasoning', () => {
    const parts = new AnswerParts();
    parts.add({ content: 'plain' });
    expect(parts.reasoning).toEqual({});
  });

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
