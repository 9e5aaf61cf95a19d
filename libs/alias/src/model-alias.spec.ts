import { applyModelAlias, ModelAliasError, parseModelAlias } from './model-alias';

describe('parseModelAlias: the rules of the interface', () => {
  it.each([
    ['a model without "@" is taken as it is', 'demo/chat', { model: 'demo/chat' }],
    [
      'provider maps to provider.only',
      'demo/chat@provider=Mock Beta',
      { model: 'demo/chat', provider: 'Mock Beta' },
    ],
    [
      'reasoning_effort maps to reasoning.effort',
      'demo/chat@reasoning_effort=high',
      { model: 'demo/chat', reasoningEffort: 'high' },
    ],
    [
      'allow_fallbacks=false',
      'demo/chat@allow_fallbacks=false',
      { model: 'demo/chat', allowFallbacks: false },
    ],
    ['allow_fallbacks=true', 'demo/chat@allow_fallbacks=true', { model: 'demo/chat', allowFallbacks: true }],
    [
      'all three keys together',
      'demo/chat@provider=Mock Alpha&reasoning_effort=low&allow_fallbacks=true',
      { model: 'demo/chat', provider: 'Mock Alpha', reasoningEffort: 'low', allowFallbacks: true },
    ],
    [
      'no percent-decoding',
      'demo/chat@provider=Mock%20Beta',
      { model: 'demo/chat', provider: 'Mock%20Beta' },
    ],
  ])('%s', (_rule, input, expected) => {
    expect(parseModelAlias(input)).toEqual(expected);
  });

  it.each(['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'])(
    'accepts reasoning_effort=%s',
    (effort) => {
      expect(parseModelAlias(`m@reasoning_effort=${effort}`).reasoningEffort).toBe(effort);
    },
  );

  it.each([
    ['an unknown key', 'demo/chat@temperature=1', /unknown key "temperature"/],
    ['a repeated key', 'demo/chat@provider=A&provider=B', /key "provider" repeats/],
    ['an empty value', 'demo/chat@provider=', /empty value for "provider"/],
    ['nothing after "@"', 'demo/chat@', /nothing after "@"/],
    ['a key without "="', 'demo/chat@provider', /key "provider" has no "="/],
    ['a value containing "="', 'demo/chat@provider=a=b', /contains "="/],
    ['an empty pair', 'demo/chat@provider=A&', /empty key=value pair/],
    ['no model before "@"', '@provider=A', /no model before "@"/],
    [
      'an unsupported reasoning effort',
      'demo/chat@reasoning_effort=extreme',
      /reasoning_effort must be one of/,
    ],
    [
      'allow_fallbacks other than true/false',
      'demo/chat@allow_fallbacks=yes',
      /allow_fallbacks must be true or false/,
    ],
  ])('refuses %s with a 400 on model', (_rule, input, message) => {
    let error: unknown;
    try {
      parseModelAlias(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ModelAliasError);
    expect((error as ModelAliasError).message).toMatch(message);
    expect((error as ModelAliasError).param).toBe('model');
  });
});

describe('applyModelAlias: equivalence with the body and conflicts', () => {
  it('moves the alias into the body fields and leaves the canonical model id', () => {
    expect(
      applyModelAlias({
        model: 'demo/chat@provider=Mock Beta&allow_fallbacks=false&reasoning_effort=low',
        messages: [],
      }),
    ).toEqual({
      model: 'demo/chat',
      messages: [],
      provider: { only: ['Mock Beta'], allow_fallbacks: false },
      reasoning: { effort: 'low' },
    });
  });

  it('keeps other provider and reasoning fields of the body', () => {
    expect(
      applyModelAlias({
        model: 'demo/chat@allow_fallbacks=true&reasoning_effort=high',
        provider: { order: ['Mock Alpha'] },
        reasoning: { max_tokens: 10 },
      }),
    ).toEqual({
      model: 'demo/chat',
      provider: { order: ['Mock Alpha'], allow_fallbacks: true },
      reasoning: { max_tokens: 10, effort: 'high' },
    });
  });

  it('returns the body untouched when there is no alias', () => {
    const body = { model: 'demo/chat', provider: { only: ['Mock Alpha'] } };
    expect(applyModelAlias(body)).toBe(body);
  });

  it.each([
    [
      'provider= with any provider object',
      { model: 'm@provider=A', provider: {} },
      /conflicts with the provider object/,
    ],
    [
      'reasoning_effort= with reasoning.effort',
      { model: 'm@reasoning_effort=low', reasoning: { effort: 'high' } },
      /conflicts with reasoning.effort/,
    ],
    [
      'allow_fallbacks= with provider.allow_fallbacks',
      { model: 'm@allow_fallbacks=true', provider: { allow_fallbacks: false } },
      /conflicts with provider.allow_fallbacks/,
    ],
  ])('refuses %s', (_rule, body, message) => {
    expect(() => applyModelAlias(body)).toThrow(message);
  });
});
