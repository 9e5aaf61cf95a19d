import 'reflect-metadata';
import { Type, plainToInstance } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Min,
  registerDecorator,
  validate,
  ValidateIf,
  ValidateNested,
  type ValidatorOptions,
} from 'class-validator';
import { BillingContracts, BillingEvents } from '@gw/contracts';
import { ChatCompletionRequestDto, ChatCompletionRpcMessageDto } from '@gw/dto';
import { apiKeyPrincipal, generationFinishedEvent } from '@gw/testing';
import { memoizeValidationMetadata } from './validation-metadata-cache';
import { ValidityCheck } from './validity-check';

memoizeValidationMetadata();

const REFUSE: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false };
const STRIP: ValidatorOptions = { whitelist: true, forbidNonWhitelisted: false, forbidUnknownValues: false };

function IsAsyncOk(): PropertyDecorator {
  return (target, key) =>
    registerDecorator({
      name: 'isAsyncOk',
      target: target.constructor,
      propertyName: key as string,
      async: true,
      validator: { validate: async () => true },
    });
}

class Part {
  @IsIn(['text', 'image'])
  type!: string;

  @IsOptional()
  @IsString()
  text?: string;
}

class Base {
  @IsString()
  name!: string;
}

class Sample extends Base {
  @IsInt()
  @Min(1)
  count!: number;

  @IsOptional()
  @IsString({ each: true })
  tags?: string[] | Set<string> | Map<string, string>;

  @ValidateIf((sample: Sample) => sample.count > 1)
  @IsString()
  reason?: string;

  @IsDefined()
  @IsOptional()
  present?: unknown;

  @IsOptional()
  @ValidateNested()
  @Type(() => Part)
  part?: Part;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Part)
  parts?: (Part | undefined)[];
}

class WithAsyncRule {
  @IsAsyncOk()
  value!: string;
}

class WithoutRules {
  value?: string;
}

/**
 * Both answers for one plain value: the check's, and class-validator's, each on its own instance.
 * Copies go through JSON as a message does (structuredClone under jest makes objects of another
 * realm, which class-transformer's discriminator does not recognise).
 */
async function bothAnswers(cls: new () => object, plain: unknown, options: ValidatorOptions = REFUSE) {
  const check = new ValidityCheck();
  const checked: object = plainToInstance(cls, copy(plain));
  const validated: object = plainToInstance(cls, copy(plain));
  return {
    check: check.passes(checked, options),
    classValidator: (await validate(validated, options)).length === 0,
  };
}

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const SAMPLE = { name: 'n', count: 1 };

describe('ValidityCheck, against class-validator on the same values', () => {
  it.each([
    ['a minimal valid object', SAMPLE],
    ['a missing inherited property', { count: 1 }],
    ['a wrong type', { ...SAMPLE, count: '1' }],
    ['a value under its minimum', { ...SAMPLE, count: 0 }],
    ['an optional property left out, or null', { ...SAMPLE, tags: null, part: null }],
    ['each item of an array checked', { ...SAMPLE, tags: ['a', 'b'] }],
    ['a bad item of an array', { ...SAMPLE, tags: ['a', 2] }],
    ['a condition that does not hold', { ...SAMPLE, count: 1, reason: 5 }],
    ['a condition that holds', { ...SAMPLE, count: 2, reason: 5 }],
    ['a condition that holds, satisfied', { ...SAMPLE, count: 2, reason: 'why' }],
    ['a nested object', { ...SAMPLE, part: { type: 'text', text: 'hi' } }],
    ['a bad nested object', { ...SAMPLE, part: { type: 'fax' } }],
    ['a nested object with an unknown property', { ...SAMPLE, part: { type: 'text', extra: 1 } }],
    ['a nested primitive', { ...SAMPLE, part: 'text' }],
    ['a nested array', { ...SAMPLE, parts: [{ type: 'text' }, { type: 'image' }] }],
    ['a nested array with a bad item', { ...SAMPLE, parts: [{ type: 'text' }, { type: 'fax' }] }],
    ['a nested array with a primitive', { ...SAMPLE, parts: [{ type: 'text' }, 'image'] }],
    ['a nested array of arrays', { ...SAMPLE, parts: [[{ type: 'text' }]] }],
    ['a nested array with a gap', { ...SAMPLE, parts: [{ type: 'text' }, null] }],
    ['an unknown property', { ...SAMPLE, unexpected: true }],
    ['a prototype key', JSON.parse('{"name":"n","count":1,"constructor":1}')],
  ])('agrees on %s', async (_label, plain) => {
    const { check, classValidator } = await bothAnswers(Sample, plain);
    expect(check).toBe(classValidator);
  });

  it('checks each item of a set and each value of a map', async () => {
    const check = new ValidityCheck();
    const sample = (tags: Sample['tags']) => Object.assign(new Sample(), { ...SAMPLE, tags });
    for (const tags of [
      new Set(['a']),
      new Set(['a', 1]),
      new Map([['k', 'v']]),
      new Map([['k', 1]]),
    ] as Sample['tags'][]) {
      expect(check.passes(sample(tags), REFUSE)).toBe((await validate(sample(tags), REFUSE)).length === 0);
    }
  });

  it('strips unknown properties at every depth as class-validator does, when told to', async () => {
    const plain = { ...SAMPLE, unexpected: 1, part: { type: 'text', extra: 2 } };
    const checked = plainToInstance(Sample, copy(plain));
    const validated = plainToInstance(Sample, copy(plain));
    expect(new ValidityCheck().passes(checked, STRIP)).toBe(true);
    expect(await validate(validated, STRIP)).toEqual([]);
    expect(checked).toEqual(validated);
    expect(checked).not.toHaveProperty('unexpected');
    expect(checked.part).not.toHaveProperty('extra');
  });

  it('keeps, as class-validator does, an own key its grouping reads from Object.prototype', async () => {
    // Nest's pipe sets `constructor` on a value class-transformer could not make an instance of.
    const checked = Object.assign(new Sample(), SAMPLE, { constructor: Sample });
    const validated = Object.assign(new Sample(), SAMPLE, { constructor: Sample });
    expect(new ValidityCheck().passes(checked, STRIP)).toBe(true);
    expect(await validate(validated, STRIP)).toEqual([]);
    expect(Object.keys(checked)).toEqual(Object.keys(validated));
  });

  it('refuses a class without rules only when unknown values are forbidden', async () => {
    const check = new ValidityCheck();
    expect(check.passes(new WithoutRules(), { forbidUnknownValues: false })).toBe(true);
    expect(check.passes(new WithoutRules(), { forbidUnknownValues: true })).toBe(false);
    expect(await validate(new WithoutRules(), { forbidUnknownValues: true })).not.toEqual([]);
  });

  it('leaves to class-validator what it does not decide: async rules, promises and groups', () => {
    const check = new ValidityCheck();
    expect(check.passes(Object.assign(new WithAsyncRule(), { value: 'v' }), REFUSE)).toBe(false);
    expect(
      check.passes(Object.assign(new Sample(), { ...SAMPLE, present: Promise.resolve(1) }), REFUSE),
    ).toBe(false);
    expect(check.passes(Object.assign(new Sample(), SAMPLE), { ...REFUSE, groups: ['a'] })).toBe(false);
  });
});

/**
 * The messages of every chat, each valid and then spoiled at every field in turn: left out, null,
 * of another type, and with an unknown field beside it. The check must answer exactly as
 * class-validator does for each of them.
 */
describe('ValidityCheck on the messages of a chat', () => {
  const body = {
    model: 'openai/gpt-4o-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Hello' }] },
    ],
    max_tokens: 100,
    temperature: 0.5,
    stream: false,
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
  };
  const messages: [string, new () => object, Record<string, unknown>, ValidatorOptions][] = [
    ['the HTTP body', ChatCompletionRequestDto, body, REFUSE],
    [
      'the chat message',
      ChatCompletionRpcMessageDto,
      {
        principal: apiKeyPrincipal(),
        body,
        apiType: 'chat_completions',
        generationId: 'gen-3f0c2a4e-8d1b-4f7a-9c7e-2b5d6e8f9a02',
      },
      REFUSE,
    ],
    [
      'the reserve',
      BillingContracts.reserve.requestClass,
      {
        generationId: 'gen-1',
        organizationId: '3f0c2a4e-8d1b-4f7a-9c7e-2b5d6e8f9a01',
        apiKeyId: null,
        maxAmount: '1.5',
        minAmount: '0.1',
        model: 'openai/gpt-4o-mini',
        requestType: 'chat',
      },
      REFUSE,
    ],
    [
      'the finished generation',
      BillingEvents.generationFinished.eventClass,
      generationFinishedEvent('3f0c2a4e-8d1b-4f7a-9c7e-2b5d6e8f9a01') as unknown as Record<string, unknown>,
      STRIP,
    ],
  ];

  it.each(messages)('agrees on %s as sent', async (_label, cls, plain, options) => {
    expect(await bothAnswers(cls, plain, options)).toEqual({ check: true, classValidator: true });
  });

  it.each(messages)('agrees on %s spoiled at every field', async (_label, cls, plain, options) => {
    const disagreements: string[] = [];
    for (const [path, spoiled] of spoilings(plain)) {
      const answers = await bothAnswers(cls, spoiled, options);
      if (answers.check !== answers.classValidator) disagreements.push(`${path}: ${JSON.stringify(answers)}`);
    }
    expect(disagreements).toEqual([]);
  });
});

/** Every field of `value` at every depth, replaced by each spoiling in turn, and an unknown field beside it. */
function* spoilings(value: unknown, path = ''): Generator<[string, unknown]> {
  if (typeof value !== 'object' || value === null) return;
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value);
  const replaced = (key: string, replacement: unknown) =>
    Array.isArray(value)
      ? value.map((item, index) => (String(index) === key ? replacement : item))
      : { ...value, [key]: replacement };
  if (!Array.isArray(value)) yield [`${path}+unexpected`, { ...value, unexpected: 1 }];
  for (const [key, field] of entries) {
    const at = path ? `${path}.${key}` : key;
    if (!Array.isArray(value)) {
      const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
      yield [`${at}-missing`, rest];
    }
    for (const replacement of [null, 42, 'text', true, [], {}])
      yield [`${at}=${JSON.stringify(replacement)}`, replaced(key, replacement)];
    for (const [inner, spoiled] of spoilings(field, at)) yield [inner, replaced(key, spoiled)];
  }
}
