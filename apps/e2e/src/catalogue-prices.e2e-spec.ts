import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRICE_KEYS } from '@gw/pricing';
import {
  type CatalogueFile,
  PRICED_DEMO_CHAT,
  pricedCatalogue,
  readCatalogue,
} from './support/priced-catalogue';

/** An e2e case that bills a price: the spec file and the title of its test. */
interface BilledBy {
  spec: string;
  test: string;
}

const INVOICE: BilledBy = {
  spec: 'invoices.e2e-spec.ts',
  test: 'charges a chat exactly its hand-computed invoice, shown in usage and the history detail',
};

/**
 * For each model, the e2e case that bills each of its prices; the
 * default catalogue entries first, then what the priced demo/chat of the invoice e2e adds.
 */
const BILLED_BY: Record<string, Record<string, BilledBy>> = {
  'demo/chat': {
    prompt_per_million: {
      spec: 'embedded.e2e-spec.ts',
      test: 'answers a chat completion with usage and cost, and charges exactly that',
    },
    completion_per_million: {
      spec: 'embedded.e2e-spec.ts',
      test: 'answers a chat completion with usage and cost, and charges exactly that',
    },
    ...Object.fromEntries(
      Object.values(PRICED_DEMO_CHAT)
        .flatMap((prices) => Object.keys(prices))
        .map((key) => [key, INVOICE]),
    ),
  },
  // Charged by these cases, which check the answer rather than the amount.
  'demo/chat-fallback': {
    prompt_per_million: {
      spec: 'chat.e2e-spec.ts',
      test: 'answers demo/chat-fallback via Mock Alpha after Mock Broken failed',
    },
    completion_per_million: {
      spec: 'chat.e2e-spec.ts',
      test: 'answers demo/chat-fallback via Mock Alpha after Mock Broken failed',
    },
  },
  'demo/embed-small': {
    prompt_per_million: {
      spec: 'models-embeddings.e2e-spec.ts',
      test: 'is recorded in history as an embedding and lowers the balance by its cost',
    },
  },
  'demo/embed-large': {
    prompt_per_million: {
      spec: 'claim-checks.e2e-spec.ts',
      test: 'embeddings of demo/embed-large and charges them once',
    },
  },
  'demo/whisper': {
    stt_per_minute: {
      spec: 'transcriptions.e2e-spec.ts',
      test: 'answers json with the text and the duration-based cost',
    },
  },
  'demo/transcribe-diarize': {
    stt_per_minute: {
      spec: 'transcriptions.e2e-spec.ts',
      test: 'answers diarized_json with speakers on the diarizing model',
    },
  },
  'demo/image': {
    per_request: {
      spec: 'images.e2e-spec.ts',
      test: 'bills demo/image per image through the SDK: a url that serves a PNG of the asked size',
    },
    tiers: {
      spec: 'images.e2e-spec.ts',
      test: 'bills demo/image quality tiers: two high-quality WEBP images as b64_json, decodable at their size',
    },
  },
  'demo/image-classic': {
    per_request: {
      spec: 'images.e2e-spec.ts',
      test: 'bills demo/image-classic per image and by its hd tier, with the revised prompt',
    },
    tiers: {
      spec: 'images.e2e-spec.ts',
      test: 'bills demo/image-classic per image and by its hd tier, with the revised prompt',
    },
  },
  'demo/video': {
    video_per_second: {
      spec: 'media.e2e-spec.ts',
      test: 'bills demo/video per second: created async it is pending at once, and completes when polled',
    },
    tiers: { spec: 'media.e2e-spec.ts', test: 'bills demo/video by its resolution tiers' },
  },
  'demo/tts': {
    tts_per_million_characters: {
      spec: 'speech.e2e-spec.ts',
      test: 'bills demo/tts per million characters: audio.speech.create answers MP3 bytes',
    },
  },
};

/** Every price a catalogue sets, as `model price` pairs: a decimal string, or tiers that are not empty. */
function pricesSet(catalogue: CatalogueFile): Array<[string, string]> {
  const set = new Set<string>();
  for (const model of catalogue.models)
    for (const provider of model.providers)
      for (const key of [...PRICE_KEYS, 'tiers']) {
        const value = provider.pricing[key];
        if ((typeof value === 'string' && value.trim() !== '') || (Array.isArray(value) && value.length > 0))
          set.add(`${model.id} ${key}`);
      }
  return [...set].map((pair) => pair.split(' ') as [string, string]);
}

const specText = (spec: string) => readFileSync(join(__dirname, spec), 'utf8');

describe('every price of the demo catalogue is billed by an e2e case', () => {
  it.each([
    ['the demo catalogue', readCatalogue()],
    ["the invoice e2e's catalogue, demo/chat priced for caching, reasoning and search", pricedCatalogue()],
  ])('in %s', (_label, catalogue) => {
    const unbilled: string[] = [];
    for (const [model, key] of pricesSet(catalogue)) {
      const billedBy = BILLED_BY[model]?.[key];
      if (billedBy === undefined || !specText(billedBy.spec).includes(billedBy.test))
        unbilled.push(`${model} ${key}`);
    }
    expect(unbilled).toEqual([]);
  });
});
