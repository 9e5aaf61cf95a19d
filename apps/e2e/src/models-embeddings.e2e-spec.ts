import Decimal from 'decimal.js';
import { PRICE_KEYS, PRICING_KEYS } from '@gw/pricing';
import { expectEventually } from '@gw/testing';
import OpenAI from 'openai';
import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { http } from './support/gateway-http';

/** The subset of JSON Schema this test needs: type, enum, pattern, required, properties, additionalProperties, items, minItems, oneOf. */
interface Schema {
  type?: string | string[];
  enum?: unknown[];
  pattern?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  oneOf?: Schema[];
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The violations of `schema` by `value`, each as `<path>: <problem>`; empty when it is valid. */
function violations(schema: Schema, value: unknown, path = '$'): string[] {
  if (schema.oneOf) {
    const matching = schema.oneOf.filter((option) => violations(option, value, path).length === 0).length;
    return matching === 1 ? [] : [`${path}: matches ${matching} of oneOf`];
  }
  const actual = typeOf(value);
  const types = schema.type === undefined ? null : [schema.type].flat();
  if (types && !types.includes(actual) && !(actual === 'integer' && types.includes('number')))
    return [`${path}: is ${actual}, not ${types.join('|')}`];
  const found: string[] = [];
  if (schema.enum && !schema.enum.includes(value))
    found.push(`${path}: ${JSON.stringify(value)} not in enum`);
  if (schema.pattern && typeof value === 'string' && !new RegExp(schema.pattern).test(value))
    found.push(`${path}: ${value} does not match ${schema.pattern}`);
  if (actual === 'array') {
    const items = value as unknown[];
    if (schema.minItems !== undefined && items.length < schema.minItems)
      found.push(`${path}: fewer than ${schema.minItems} items`);
    if (schema.items)
      items.forEach((item, i) => found.push(...violations(schema.items as Schema, item, `${path}[${i}]`)));
  }
  if (actual === 'object') {
    const object = value as Record<string, unknown>;
    for (const key of schema.required ?? []) if (!(key in object)) found.push(`${path}: missing ${key}`);
    for (const [key, child] of Object.entries(object)) {
      const property = schema.properties?.[key];
      if (property) found.push(...violations(property, child, `${path}.${key}`));
      else if (schema.additionalProperties === false) found.push(`${path}: unexpected ${key}`);
      else if (typeof schema.additionalProperties === 'object')
        found.push(...violations(schema.additionalProperties, child, `${path}.${key}`));
    }
  }
  return found;
}

/* The interface's "Model catalogue entry", provider descriptor, pricing object and parameter descriptor. */
const DECIMAL = '^\\d+(\\.\\d+)?$';
const price: Schema = {
  oneOf: [
    { type: 'string', pattern: DECIMAL },
    { type: 'object', additionalProperties: false },
  ],
};
const pricing: Schema = {
  type: 'object',
  required: [...PRICING_KEYS],
  additionalProperties: false,
  properties: {
    currency: { type: 'string', enum: ['RUB'] },
    ...Object.fromEntries(PRICE_KEYS.map((unit) => [unit, price])),
    tiers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['conditions', 'cost_rub'],
        additionalProperties: false,
        properties: {
          conditions: { type: 'array', items: { type: 'string', pattern: '^[^=]+=.+$' } },
          cost_rub: { type: 'string', pattern: DECIMAL },
        },
      },
    },
    unitParam: { type: 'string' },
  },
};
const parameterDescriptors: Schema = {
  type: 'object',
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: {
      required: { type: 'boolean' },
      description: { type: 'string' },
      max_length: { type: 'number' },
      min: { type: 'number' },
      max: { type: 'number' },
      default: {},
      values: { type: 'array', items: { type: 'string' } },
    },
  },
};
const nullableNumber: Schema = { type: ['number', 'null'] };
const descriptorProperties: Record<string, Schema> = {
  is_moderated: { type: 'boolean' },
  pricing,
  context_length: nullableNumber,
  max_completion_tokens: nullableNumber,
  supported_parameters: { type: 'array', items: { type: 'string' } },
  default_parameters: {
    type: 'object',
    required: ['temperature', 'top_p', 'frequency_penalty'],
    additionalProperties: false,
    properties: { temperature: nullableNumber, top_p: nullableNumber, frequency_penalty: nullableNumber },
  },
  per_request_limits: {
    type: 'object',
    required: ['prompt_tokens', 'completion_tokens'],
    additionalProperties: false,
    properties: { prompt_tokens: nullableNumber, completion_tokens: nullableNumber },
  },
  parameters: parameterDescriptors,
};
const DESCRIPTOR_FIELDS = [
  'is_moderated',
  'pricing',
  'context_length',
  'max_completion_tokens',
  'supported_parameters',
  'default_parameters',
  'per_request_limits',
  'parameters',
];
const providerDescriptor: Schema = {
  type: 'object',
  required: DESCRIPTOR_FIELDS,
  additionalProperties: false,
  properties: descriptorProperties,
};
const modelEntry: Schema = {
  type: 'object',
  required: [
    'id',
    'name',
    'type',
    'created',
    'architecture',
    'top_provider',
    'endpoints',
    'short_description',
    'providers',
    'parameters',
    'operations',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^[^@]+/[^@]+$' },
    name: { type: 'string' },
    type: { type: 'string' },
    created: { type: 'integer' },
    architecture: {
      type: 'object',
      required: ['input_modalities', 'output_modalities', 'modality', 'tokenizer', 'instruct_type'],
      additionalProperties: false,
      properties: {
        input_modalities: { type: 'array', items: { type: 'string' }, minItems: 1 },
        output_modalities: { type: 'array', items: { type: 'string' }, minItems: 1 },
        modality: { type: 'string', pattern: '^[a-z]+(\\+[a-z]+)*->[a-z]+(\\+[a-z]+)*$' },
        tokenizer: { type: 'string' },
        instruct_type: { type: 'string' },
      },
    },
    top_provider: providerDescriptor,
    endpoints: { type: 'array', items: { type: 'string', pattern: '^/v\\d/' }, minItems: 1 },
    short_description: { type: 'string' },
    providers: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', ...DESCRIPTOR_FIELDS],
        additionalProperties: false,
        properties: { name: { type: 'string' }, ...descriptorProperties },
      },
    },
    parameters: parameterDescriptors,
    operations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'async', 'description', 'pricing', 'parameters'],
        additionalProperties: false,
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          async: { type: 'boolean' },
          description: { type: 'string' },
          pricing,
          parameters: parameterDescriptors,
        },
      },
    },
  },
};
const modelList: Schema = {
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: { data: { type: 'array', items: modelEntry, minItems: 1 } },
};

describe('GET /v1/models and POST /v1/embeddings against the embedded gateway', () => {
  let gateway: EmbeddedGateway;
  let api: string;
  let apiKey: string;
  let openai: OpenAI;

  beforeAll(async () => {
    gateway = await startEmbeddedGateway('models-embeddings');
    api = gateway.api;
    apiKey = gateway.apiKey;
    openai = new OpenAI({ apiKey, baseURL: `${api}/v1`, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
  });

  describe('GET /v1/models', () => {
    it('validates against the JSON schema of the interface entry, without credentials', async () => {
      const list = await http('GET', `${api}/v1/models`);
      expect(list.status).toBe(200);
      expect(violations(modelList, list.body)).toEqual([]);
      expect(list.body.data).toHaveLength(10);
      // top_provider is the first provider's descriptor without its name.
      for (const entry of list.body.data) {
        const { name: _name, ...first } = entry.providers[0];
        expect(entry.top_provider).toEqual(first);
      }
    });

    it('catches what the schema forbids (the validator is not vacuous)', () => {
      const entry = { id: 'a/b@x', name: 'n', type: 't', created: 1.5 };
      expect(violations(modelEntry, entry)).toEqual(
        expect.arrayContaining([
          '$: missing architecture',
          '$.id: a/b@x does not match ^[^@]+/[^@]+$',
          '$.created: is number, not integer',
        ]),
      );
      expect(violations(price, '12 RUB')).toEqual(['$: matches 0 of oneOf']);
    });

    it.each<[string, string, string[]]>([
      ['type', 'type=embedding', ['demo/embed-small', 'demo/embed-large']],
      ['endpoint', 'endpoint=/v1/embeddings', ['demo/embed-small', 'demo/embed-large']],
      [
        'type and endpoint',
        'type=image&endpoint=/v2/images/generations',
        ['demo/image', 'demo/image-classic'],
      ],
      ['a type no model of the endpoint has', 'type=video&endpoint=/v1/chat/completions', []],
      [
        'type, ignoring parameters it does not know',
        'type=embedding&limit=1&_=1732300000',
        ['demo/embed-small', 'demo/embed-large'],
      ],
    ])('filters by %s', async (_label, query, ids) => {
      const list = await http('GET', `${api}/v1/models?${query}`);
      expect(list.status).toBe(200);
      expect(list.body.data.map((m: { id: string }) => m.id)).toEqual(ids);
    });

    it.each([
      ['type', 'type=spaceship'],
      ['endpoint', 'endpoint=/v1/nothing'],
    ])('answers 400 naming an unknown %s', async (param, query) => {
      const list = await http('GET', `${api}/v1/models?${query}`);
      expect(list.status).toBe(400);
      expect(list.body.error).toMatchObject({ type: 'invalid_request_error', param });
    });
  });

  describe('POST /v1/embeddings through the official openai SDK', () => {
    it('is recorded in history as an embedding and lowers the balance by its cost', async () => {
      const created = await openai.embeddings.create({
        model: 'demo/embed-large',
        input: 'history of an embedding',
        encoding_format: 'float',
      });
      const cost = (created.usage as unknown as { cost_rub: number }).cost_rub;
      expect(cost).toBeGreaterThan(0);
      const id = (created as unknown as { id: string }).id;
      const detail = await expectEventually(async () => {
        const found = await http('GET', `${api}/v1/history/generations/${id}`, { token: apiKey });
        expect(found.status).toBe(200);
        return found.body;
      });
      expect(detail).toMatchObject({
        requestType: 'embedding',
        apiType: 'embeddings',
        status: 'completed',
        unifiedModelId: 'demo/embed-large',
      });
      expect(new Decimal(detail.clientCost).toNumber()).toBe(cost);
      // Usage settles after the answer: once history and balance have caught up, the demo credit less every
      // generation's cost is the balance.
      await expectEventually(async () => {
        const history = await http('GET', `${api}/v1/history/generations?limit=100`, { token: apiKey });
        const charged = history.body.items.reduce(
          (sum: Decimal, item: { cost: string }) => sum.plus(item.cost),
          new Decimal(0),
        );
        const balance = (await http('GET', `${api}/v1/balance`, { token: apiKey })).body.amount as string;
        expect(new Decimal('1000').minus(charged).toString()).toBe(new Decimal(balance).toString());
      });
    });

    it('answers floats, one item per input at its index', async () => {
      const created = await openai.embeddings.create({
        model: 'demo/embed-small',
        input: ['first', 'second', 'third'],
        encoding_format: 'float',
      });
      // Mock Alpha counts ceil(bytes / 4) per input: 2 + 2 + 2; at 2 RUB per million that is 0.000012.
      expect(created).toMatchObject({
        object: 'list',
        model: 'demo/embed-small',
        usage: { prompt_tokens: 6, total_tokens: 6, cost_rub: 0.000012 },
      });
      expect(created.data.map((item) => [item.object, item.index, item.embedding.length])).toEqual([
        ['embedding', 0, 1536],
        ['embedding', 1, 1536],
        ['embedding', 2, 1536],
      ]);
    });

    it('answers base64 that decodes through Float32Array to the float answer', async () => {
      const floats = await openai.embeddings.create({
        model: 'demo/embed-large',
        input: ['the same text', 'another'],
        encoding_format: 'float',
      });
      const encoded = await openai.embeddings.create({
        model: 'demo/embed-large',
        input: ['the same text', 'another'],
        encoding_format: 'base64',
      });
      encoded.data.forEach((item, i) => {
        expect(typeof item.embedding).toBe('string');
        const bytes = Buffer.from(item.embedding as unknown as string, 'base64');
        expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4))).toEqual(
          floats.data[i].embedding,
        );
      });
    });

    it('decodes base64 to the same floats in the SDK default (no encoding_format)', async () => {
      const floats = await openai.embeddings.create({
        model: 'demo/embed-small',
        input: 'default format',
        encoding_format: 'float',
      });
      const decoded = await openai.embeddings.create({ model: 'demo/embed-small', input: 'default format' });
      expect(decoded.data[0].embedding).toEqual(floats.data[0].embedding);
    });

    it('shortens vectors to dimensions where the model takes them', async () => {
      const created = await openai.embeddings.create({
        model: 'demo/embed-large',
        input: 'short please',
        dimensions: 64,
        encoding_format: 'float',
      });
      expect(created.data[0].embedding).toHaveLength(64);
    });

    it.each<[string, Record<string, unknown>, string]>([
      [
        'dimensions on demo/embed-small',
        { model: 'demo/embed-small', input: 'x', dimensions: 256 },
        'dimensions',
      ],
      [
        'dimensions above the maximum',
        { model: 'demo/embed-large', input: 'x', dimensions: 3073 },
        'dimensions',
      ],
      ['dimensions below 1', { model: 'demo/embed-large', input: 'x', dimensions: 0 }, 'dimensions'],
      ['an empty input list', { model: 'demo/embed-large', input: [] }, 'input'],
      ['a model alias', { model: 'demo/embed-large@provider=Mock Alpha', input: 'x' }, 'model'],
    ])('answers 400 for %s naming the parameter', async (_label, body, param) => {
      const error = await openai.embeddings
        .create(body as unknown as OpenAI.EmbeddingCreateParams)
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    });

    it('needs credentials', async () => {
      const response = await http('POST', `${api}/v1/embeddings`, {
        body: { model: 'demo/embed-small', input: 'x' },
      });
      expect(response.status).toBe(401);
    });
  });
});
