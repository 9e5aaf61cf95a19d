import { expectEventually } from '@gw/testing';
import Decimal from 'decimal.js';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http, type HttpResult, seedOrganization, sseData } from './support/gateway-http';

/** Mock Alpha's prices in RUB per token: the demo catalogue's 150 and 600 per million. */
const PROMPT_RUB = new Decimal('0.00015');
const COMPLETION_RUB = new Decimal('0.0006');

/**
 * Words of three letters, for answers whose length in Mock Alpha's tokens (one per word) a test
 * counts; the chats that measure holds send prose instead (PROSE).
 */
const WORDS = ['one', 'two', 'six', 'ten', 'red', 'big', 'cat', 'dog', 'sun', 'sky', 'day', 'sea'];
const words = (count: number) => Array.from({ length: count }, (_, i) => WORDS[i % WORDS.length]).join(' ');

/**
 * Ordinary chats of several lengths in two languages. The gateway's own estimate of their tokens
 * is not Mock Alpha's count (one per word): about 1.5 times it for English, over 3 times for
 * Russian, whose letters take two bytes each. Only what it learned from the provider's counts
 * sizes their holds right.
 */
const PROSE = {
  'a short English question':
    'Could you tell me what the weather is usually like in Lisbon during early spring?',
  'an English paragraph':
    'I am planning a week-long trip to Portugal in April with two friends who have never been to Europe. ' +
    'We would like to spend a few days in Lisbon, then take the train to Porto, and maybe visit a small ' +
    'town on the coast on the way. Which places would you recommend, and how much time should we leave for each?',
  'a short Russian question': 'Подскажи, пожалуйста, какая погода обычно бывает в Лиссабоне ранней весной?',
  'a Russian paragraph':
    'Я планирую недельную поездку в Португалию в апреле вместе с двумя друзьями, которые никогда не были в Европе. ' +
    'Мы хотели бы провести несколько дней в Лиссабоне, затем доехать на поезде до Порту и, может быть, ' +
    'заглянуть по дороге в небольшой городок на побережье. Какие места ты бы посоветовал и сколько времени оставить на каждое?',
} as const;

/**
 * Holds that fit the work, over HTTP against the built embedded app: a chat holds about what it
 * costs and its hold grows with the answer, so a small balance serves about as many parallel
 * chats as it pays for, answers run to their end while money remains, and the balance never goes
 * below zero.
 */
describe('holds that fit the work (embedded app)', () => {
  let gateway: EmbeddedGateway;
  let api: string;

  beforeAll(async () => {
    gateway = await startEmbeddedGateway('holds-e2e', {
      RATE_LIMIT_RPM_PER_KEY: '0',
      RATE_LIMIT_CONCURRENT_PER_KEY: '0',
      RATE_LIMIT_RPM_PER_ORGANIZATION: '0',
      RATE_LIMIT_CONCURRENT_PER_ORGANIZATION: '0',
    });
    api = gateway.api;
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  const chat = (key: string, content: string, extra: Record<string, unknown> = {}) =>
    http('POST', `${api}/v1/chat/completions`, {
      token: key,
      body: { model: 'demo/chat', messages: [{ role: 'user', content }], ...extra },
    });
  const balance = async (key: string) =>
    new Decimal((await http('GET', `${api}/v1/balance`, { token: key })).body.amount);
  /** What the history of an organization says it was charged, once it lists `count` generations. */
  const charged = (key: string, count: number) =>
    expectEventually(async () => {
      const res = await http('GET', `${api}/v1/history/generations?limit=100`, { token: key });
      expect(res.body.meta.total).toBe(count);
      return res.body.items.reduce(
        (sum: Decimal, item: { cost: string }) => sum.plus(item.cost),
        new Decimal(0),
      ) as Decimal;
    });
  const alphaCost = (usage: { prompt_tokens: number; completion_tokens: number }) =>
    PROMPT_RUB.times(usage.prompt_tokens).plus(COMPLETION_RUB.times(usage.completion_tokens));

  /**
   * What the gateway learns from: `count` chats of `content` in a row on the demo key, as a gateway
   * in service has answered many before; answers the cost of one.
   */
  const warmUp = async (content: string, count = 30): Promise<Decimal> => {
    let cost = new Decimal(0);
    for (let i = 0; i < count; i++) {
      const res = await chat(gateway.apiKey, content);
      expect(res.status).toBe(200);
      expect(res.body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content } });
      cost = new Decimal(res.body.usage.cost_rub);
      expect(cost.toString()).toBe(alphaCost(res.body.usage).toString());
    }
    return cost;
  };
  const isWhole = (res: HttpResult<any>, content: string) =>
    res.status === 200 &&
    res.body.choices[0].finish_reason === 'stop' &&
    res.body.choices[0].message.content === content;

  it.each([
    ['a short English question', 10],
    ['a short English question', 50],
    ['an English paragraph', 10],
    ['a short Russian question', 10],
    ['a Russian paragraph', 10],
  ] as const)(
    'serves at least 0.8·N of 100 parallel chats of %s from a balance worth N = %i of them, each answer whole',
    async (kind, N) => {
      const content = PROSE[kind];
      const chatCost = await warmUp(content);
      const credit = chatCost.times(N).toFixed(8);
      const org = await seedOrganization(api, gateway.adminToken, credit);
      const results = await Promise.all(Array.from({ length: 100 }, () => chat(org.apiKey, content)));

      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
      const answered = results.filter((r) => r.status === 200);
      const whole = answered.filter((r) => isWhole(r, content));
      for (const refused of results.filter((r) => r.status === 402))
        expect(refused.body.error.code).toBe('insufficient_balance');

      // Credits − every charge in history = the balance, to the kopeck and beyond; never below zero.
      const spent = await charged(org.apiKey, answered.length);
      const left = await balance(org.apiKey);
      expect(left.toString()).toBe(new Decimal(credit).minus(spent).toString());
      expect(left.greaterThanOrEqualTo(0)).toBe(true);
      console.log(
        `holds: ${kind}, balance worth ${N} chats (${credit} RUB), 100 in parallel: ${whole.length} whole, ` +
          `${answered.length - whole.length} cut, ${results.length - answered.length} refused (402); ${left.toFixed(8)} RUB left`,
      );
      expect(whole.length).toBeGreaterThanOrEqual(0.8 * N);
      // An answer cut short was cut only because the money ran out: what is left would not pay for it whole.
      if (whole.length < answered.length) expect(left.lessThan(chatCost)).toBe(true);
    },
  );

  it.each(Object.keys(PROSE) as (keyof typeof PROSE)[])(
    'spends a balance worth 10½ chats of %s, 20 asked one after another, down to less than one chat',
    async (kind) => {
      const content = PROSE[kind];
      const chatCost = await warmUp(content);
      const credit = chatCost.times(10.5).toFixed(8);
      const org = await seedOrganization(api, gateway.adminToken, credit);
      const results: HttpResult<any>[] = [];
      for (let i = 0; i < 20; i++) results.push(await chat(org.apiKey, content));
      expect(results.every((r) => r.status === 200 || r.status === 402)).toBe(true);
      const answered = results.filter((r) => r.status === 200);
      const whole = answered.filter((r) => isWhole(r, content));
      const spent = await charged(org.apiKey, answered.length);
      const left = await balance(org.apiKey);
      // Once every answer is settled, what is left cannot pay for another chat, and the refusal asks for no more than one costs.
      const refusal = await chat(org.apiKey, content);
      console.log(
        `holds: ${kind}, balance worth 10½ chats (${credit} RUB), 20 in a row: ${whole.length} whole, ` +
          `${answered.length - whole.length} cut; ${left.toFixed(8)} RUB left; then ${refusal.text}`,
      );
      expect(left.toString()).toBe(new Decimal(credit).minus(spent).toString());
      expect(left.greaterThanOrEqualTo(0)).toBe(true);
      expect(left.lessThan(chatCost)).toBe(true);
      expect(whole.length).toBeGreaterThanOrEqual(10);
      expect(refusal.status).toBe(402);
      const message: string = refusal.body.error.message;
      if (left.isZero())
        expect(message).toBe(
          'Insufficient balance: the balance is 0.00000000 RUB. Top up the balance to continue.',
        );
      else
        expect(
          new Decimal(/needs at least (\d+\.\d+) RUB/.exec(message)?.[1] ?? 'NaN').lessThanOrEqualTo(
            chatCost,
          ),
        ).toBe(true);
    },
  );

  it.each([false, true])(
    'grows the hold of a long answer step by step and charges what it really cost (stream %s)',
    async (stream) => {
      const org = await seedOrganization(api, gateway.adminToken, '10.00');
      const long = words(1_500);
      const res = await chat(org.apiKey, long, { stream });
      expect(res.status).toBe(200);
      const last = stream ? JSON.parse(sseData(res.text).at(-2) as string) : res.body;
      const content = stream
        ? sseData(res.text)
            .slice(0, -1)
            .map((data) => JSON.parse(data).choices[0]?.delta?.content ?? '')
            .join('')
        : res.body.choices[0].message.content;
      expect(content).toBe(long);
      expect(last.choices[0].finish_reason).toBe('stop');
      expect(last.usage.completion_tokens).toBe(1_500);
      // The first hold covered a typical answer at most; the charge is the whole answer's, not capped by it.
      expect(last.usage.cost_rub.toString()).toBe(alphaCost(last.usage).toString());
      const spent = await charged(org.apiKey, 1);
      expect(spent.toString()).toBe(alphaCost(last.usage).toString());
      expect((await balance(org.apiKey)).toString()).toBe(new Decimal(10).minus(spent).toString());
    },
  );

  it('answers a balance too small for the whole answer up to where the money ends, as length, never below zero', async () => {
    const long = words(600);
    // The prompt (604 tokens) and about 300 of the 600 words.
    const credit = PROMPT_RUB.times(604).plus(COMPLETION_RUB.times(300)).toFixed(8);
    const org = await seedOrganization(api, gateway.adminToken, credit);
    const res = await chat(org.apiKey, long);
    expect(res.status).toBe(200);
    const answer: string = res.body.choices[0].message.content;
    expect(res.body.choices[0].finish_reason).toBe('length');
    expect(long.startsWith(answer)).toBe(true);
    const produced = answer.split(' ').length;
    expect(produced).toBeGreaterThan(250);
    expect(produced).toBeLessThan(600);
    const spent = await charged(org.apiKey, 1);
    const left = await balance(org.apiKey);
    expect(left.toString()).toBe(new Decimal(credit).minus(spent).toString());
    // Stopped only when the balance was spent: less than two more words' worth is left, and nothing below zero.
    expect(left.greaterThanOrEqualTo(0)).toBe(true);
    expect(left.lessThan(COMPLETION_RUB.times(2))).toBe(true);
  });
});
