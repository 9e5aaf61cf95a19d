import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import {
  type GenerationFinishedEvent,
  GenerationFinishedEvent as GenerationFinishedEventClass,
  generationFinishedBoundsHold,
  type ReserveCreditRequest,
  ReserveCreditRequest as ReserveCreditRequestClass,
  reserveAmountsHold,
} from '..';

/** Whether billing's own validation of the message class accepts the message. */
function accepted(messageClass: new () => object, message: object): boolean {
  return validateSync(plainToInstance(messageClass, message), { forbidUnknownValues: true }).length === 0;
}

const finished: GenerationFinishedEvent = {
  generationId: 'gen-1',
  organizationId: '6f1c2a8e-4b7d-4e0a-9c3f-2d5e8a1b7c90',
  apiKeyId: '0b9e4f6a-2c1d-4a8e-b7f3-5d6c9e0a1b2c',
  apiKeyName: 'ci',
  apiKeyShort: 'sk-...abcd',
  userId: null,
  model: 'openai/gpt-4o-mini',
  modelDisplayName: 'GPT-4o mini',
  requestType: 'chat',
  apiType: 'chat_completions',
  responseMode: 'stream',
  status: 'completed',
  finishReason: 'stop',
  provider: 'OpenAI',
  usage: {
    prompt_tokens: 21,
    completion_tokens: 200,
    total_tokens: 221,
    prompt_tokens_details: {
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      audio_tokens: 0,
      cached_audio_tokens: 0,
      image_tokens: 0,
    },
    completion_tokens_details: { reasoning_tokens: 64, audio_tokens: 0, image_tokens: 0 },
  },
  cost: '0.0123',
  generationTimeMs: 4_012,
  latencyMs: 180,
  queueTimeMs: 0,
  attemptsCount: 1,
  isCancelled: false,
  error: null,
  createdAt: '2026-11-28T09:00:00.000Z',
  completedAt: '2026-11-28T09:00:04.012Z',
};

const reserve: ReserveCreditRequest = {
  generationId: 'gen-1',
  organizationId: finished.organizationId,
  apiKeyId: null,
  maxAmount: '0.384',
  minAmount: '1e-8',
};

/**
 * The bounds a producer checks where it builds a message stand in for billing's validation of it in
 * one process (decision 191): wherever the type holds, they must refuse what the validation refuses
 * and accept what it accepts.
 */
describe('the bounds of a message its producer checks', () => {
  it.each<[string, Partial<GenerationFinishedEvent>]>([
    ['an ordinary event', {}],
    ['a free one without usage', { cost: '0', usage: null, latencyMs: null, generationTimeMs: null }],
    ['the largest recordable cost', { cost: '999999999999.98' }],
    ['a tiny cost in decimal.js exponent form', { cost: '1e-8' }],
    ['the longest duration an integer column holds', { generationTimeMs: 2_147_483_647 }],
  ])('accepts %s, as billing does', (_label, change) => {
    const event = { ...finished, ...change };
    expect(generationFinishedBoundsHold(event)).toBe(true);
    expect(accepted(GenerationFinishedEventClass, event)).toBe(true);
  });

  it.each<[string, Partial<GenerationFinishedEvent>]>([
    ['a cost numeric(20,8) cannot hold', { cost: '1000000000000' }],
    ['a negative cost', { cost: '-0.5' }],
    ['a cost that is not a number', { cost: 'NaN' }],
    ['an infinite cost', { cost: 'Infinity' }],
    ['a negative duration (a clock stepped back)', { generationTimeMs: -3 }],
    ['a duration past an integer column', { latencyMs: 2_147_483_648 }],
    ['a fractional duration', { queueTimeMs: 0.5 }],
    ['an attempt count past an integer column', { attemptsCount: 2 ** 31 }],
    ['a fractional token count', { usage: { prompt_tokens: 1.5, completion_tokens: 0, total_tokens: 1.5 } }],
    [
      'a negative token count in the details',
      {
        usage: {
          ...finished.usage!,
          completion_tokens_details: { reasoning_tokens: -1, audio_tokens: 0, image_tokens: 0 },
        },
      },
    ],
  ])('refuses %s, as billing does', (_label, change) => {
    const event = { ...finished, ...change };
    expect(generationFinishedBoundsHold(event)).toBe(false);
    expect(accepted(GenerationFinishedEventClass, event)).toBe(false);
  });

  it.each<[string, Partial<ReserveCreditRequest>, boolean]>([
    ['an ordinary hold', {}, true],
    ['a hold of nothing at least', { minAmount: '0' }, true],
    ['a negative amount', { maxAmount: '-1' }, false],
    ['an infinite amount', { maxAmount: 'Infinity' }, false],
    ['an amount that is not a number', { minAmount: 'NaN' }, false],
  ])('judges a reserve with %s as billing does', (_label, change, holds) => {
    const request = { ...reserve, ...change };
    expect(reserveAmountsHold(request)).toBe(holds);
    expect(accepted(ReserveCreditRequestClass, request)).toBe(holds);
  });
});
