import type { UpstreamChatRequest } from './upstream-chat';
import { toAnthropicRequest } from './anthropic-request';

const request = (fields: Partial<UpstreamChatRequest> = {}): UpstreamChatRequest => ({
  model: 'beta-chat',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 64,
  ...fields,
});

describe('toAnthropicRequest', () => {
  it.each<[string, Partial<UpstreamChatRequest>, Record<string, unknown>]>([
    ['stop as stop_sequences', { stop: ['END', '\n\nHuman:'] }, { stop_sequences: ['END', '\n\nHuman:'] }],
    [
      'the system prompt apart from the turns',
      {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
      },
      { system: 'be brief' },
    ],
  ])('sends %s', (_label, fields, expected) => {
    expect(toAnthropicRequest(request(fields))).toMatchObject(expected);
  });

  it('sends instructions without any turn as the one user turn, which the wire requires', () => {
    const body = toAnthropicRequest(request({ messages: [{ role: 'developer', content: 'say hi' }] }));
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'say hi' }] }]);
    expect(body).not.toHaveProperty('system');
  });

  it('sends none of the OpenAI-only fields, nor stop_sequences without stop', () => {
    const body = toAnthropicRequest(request({ seed: 7, logit_bias: { '1': 1 }, parallel_tool_calls: false }));
    expect(Object.keys(body).sort()).toEqual(['max_tokens', 'messages', 'model']);
  });
});
