import { DomainError } from '@gw/contracts';
import type { MessagesRequestDto, ResponsesRequestDto } from '@gw/dto';
import { messagesToChatBody } from './messages-translation';
import { responsesToChatBody } from './responses-translation';

/** Values a body may hold where another shape was expected. */
const ODD_VALUES: unknown[] = [
  undefined,
  null,
  0,
  1.5,
  '',
  'x',
  true,
  [],
  [[]],
  [null],
  {},
  { type: 'text' },
  [{}],
];

/** Every path to a value inside `value`, objects and arrays included. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [prefix];
  const children = Object.entries(value).flatMap(([key, child]) =>
    paths(child, [...prefix, Array.isArray(value) ? Number(key) : key]),
  );
  return [prefix, ...children];
}

function replaced<T>(value: T, path: Array<string | number>, replacement: unknown): T {
  if (path.length === 0) return replacement as T;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  parent[path[path.length - 1]] = replacement;
  return copy as T;
}

/** Runs `translate` on every one-value mutation of `body`: it may answer or refuse with a DomainError, nothing else. */
function failuresOtherThanDomainErrors<T>(body: T, translate: (body: T) => unknown): string[] {
  const failures: string[] = [];
  for (const path of paths(body).filter((p) => p.length > 0)) {
    for (const odd of ODD_VALUES) {
      try {
        translate(replaced(body, path, odd));
      } catch (err) {
        if (!(err instanceof DomainError))
          failures.push(`${path.join('.')} = ${JSON.stringify(odd)}: ${String(err)}`);
      }
    }
  }
  return failures;
}

const MESSAGES_BODY = {
  model: 'demo/chat',
  max_tokens: 64,
  system: [{ type: 'text', text: 'be brief' }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'checking' },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'found' }],
          is_error: false,
        },
        { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
      ],
    },
  ],
  tools: [{ name: 'lookup', description: 'Find', input_schema: { type: 'object' } }],
  tool_choice: { type: 'tool', name: 'lookup' },
  stop_sequences: ['END'],
  thinking: { type: 'enabled', budget_tokens: 1024 },
  metadata: { user_id: 'u' },
  provider: { only: ['Mock Alpha'] },
} as unknown as MessagesRequestDto;

const RESPONSES_BODY = {
  model: 'demo/chat',
  instructions: 'be brief',
  input: [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'look' },
        { type: 'input_image', image_url: 'https://x/y.png' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'output_text', text: 'checking' },
        { type: 'refusal', refusal: 'no' },
      ],
    },
    { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' },
    { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'found' }] },
    { type: 'message', role: 'developer', content: 'and now?' },
  ],
  tools: [
    { type: 'function', name: 'lookup', description: 'Find', parameters: { type: 'object' }, strict: true },
  ],
  tool_choice: { type: 'function', name: 'lookup' },
  text: {
    format: {
      type: 'json_schema',
      name: 'answer',
      schema: { type: 'object' },
      description: 'd',
      strict: true,
    },
  },
  reasoning: { effort: 'low' },
  max_output_tokens: 64,
  provider: { only: ['Mock Alpha'] },
} as unknown as ResponsesRequestDto;

describe('the translators on odd input', () => {
  it('translate the sample bodies', () => {
    expect(messagesToChatBody(MESSAGES_BODY, false).messages).toHaveLength(5);
    expect(responsesToChatBody(RESPONSES_BODY, false).messages).toHaveLength(5);
  });

  it('never fail on a Messages body with any one value of another shape, except with a DomainError', () => {
    expect(failuresOtherThanDomainErrors(MESSAGES_BODY, (body) => messagesToChatBody(body, true))).toEqual(
      [],
    );
  });

  it('never fail on a Responses body with any one value of another shape, except with a DomainError', () => {
    expect(failuresOtherThanDomainErrors(RESPONSES_BODY, (body) => responsesToChatBody(body, true))).toEqual(
      [],
    );
  });
});
