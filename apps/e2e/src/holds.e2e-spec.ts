import { expectEventually } from '@gw/testing';
import Decimal from 'decimal.js';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http, type HttpResult, seedOrganization, sseData } from './support/gateway-http';

/** Mock Alpha's prices in RUB per token: the demo catalogue's 150 and 600 per million. */
const PROMPT_RUB = new Decimal('0.00015');
const COMPLETION_RUB = new Decimal('0.0006');

/**
 * Words of three letters: a quarter of their bytes is one token each, so the gateway's estimate
 * and Mock Alpha's count (one per word) agree, as the estimate and a real tokenizer do on prose.
 */
const WORDS = ['one', 'two', 'six', 'ten', 'red', 'big', 'cat', 'dog', 'sun', 'sky', 'day', 'sea'];
const words = (count: number) => Array.from({ length: count }, (_, i) => WORDS[i % WORDS.length]).join(' ');
/** A typical chat: 24 words that Mock Alpha echoes, with no max_tokens. */
const TYPICAL = words(24);

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

  it.each([10, 50])(
    'serves at least 0.8·N of 100 parallel chats from a balance worth N = %i of them, each answer whole',
    async (N) => {
      // The gateway has been serving typical chats: the model's recent answers size the first hold.
      const warmUp: HttpResult<any>[] = [];
      for (let i = 0; i < 5; i++) warmUp.push(await chat(gateway.apiKey, TYPICAL));
      const typical = warmUp[0].body;
      expect(typical.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: TYPICAL } });
      const typicalCost = new Decimal(typical.usage.cost_rub);
      expect(typicalCost.toString()).toBe(alphaCost(typical.usage).toString());

      const credit = typicalCost.times(N).toFixed(8);
      const org = await seedOrganization(api, gateway.adminToken, credit);
      const results = await Promise.all(Array.from({ length: 100 }, () => chat(org.apiKey, TYPICAL)));

      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
      const answered = results.filter((r) => r.status === 200);
      const whole = answered.filter(
        (r) => r.body.choices[0].finish_reason === 'stop' && r.body.choices[0].message.content === TYPICAL,
      );
      expect(whole.length).toBeGreaterThanOrEqual(0.8 * N);
      for (const refused of results.filter((r) => r.status === 402))
        expect(refused.body.error.code).toBe('insufficient_balance');

      // Credits − every charge in history = the balance, to the kopeck and beyond; never below zero.
      const spent = await charged(org.apiKey, answered.length);
      const left = await balance(org.apiKey);
      expect(left.toString()).toBe(new Decimal(credit).minus(spent).toString());
      expect(left.greaterThanOrEqualTo(0)).toBe(true);
      // An answer cut short was cut only because the money ran out: what is left would not pay for it whole.
      if (whole.length < answered.length) expect(left.lessThan(typicalCost)).toBe(true);
      console.log(
        `holds: balance worth ${N} typical chats (${credit} RUB), 100 in parallel: ${whole.length} whole, ` +
          `${answered.length - whole.length} cut, ${results.length - answered.length} refused (402); ${left.toFixed(8)} RUB left`,
      );
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
