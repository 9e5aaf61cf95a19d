import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEMO_CATALOGUE = join(__dirname, '../../../../config/catalogue.demo.json');

export interface CatalogueFile {
  models: Array<{
    id: string;
    providers: Array<{ name: string; pricing: Record<string, unknown> }>;
  }>;
}

/**
 * demo/chat's prices of a provider with prompt caching, reasoning, web search and audio and images
 * in prompts, as the invoice e2e bills them: Mock Alpha (OpenAI wire) and Mock Beta (Anthropic
 * wire, which tells no reasoning, audio or images apart, so they have no price there).
 */
export const PRICED_DEMO_CHAT: Record<string, Record<string, string>> = {
  'Mock Alpha': {
    request_per_thousand: '0.50',
    input_cache_read_per_million: '15.00',
    input_cache_write_per_million: '187.50',
    internal_reasoning_per_million: '900.00',
    audio_per_million: '3000.00',
    image_input_per_million: '300.00',
    web_search_per_thousand: '2500.00',
  },
  'Mock Beta': {
    input_cache_read_per_million: '20.00',
    input_cache_write_per_million: '250.00',
    web_search_per_thousand: '2500.00',
  },
};

export function readCatalogue(path = DEMO_CATALOGUE): CatalogueFile {
  return JSON.parse(readFileSync(path, 'utf8')) as CatalogueFile;
}

/** The demo catalogue with demo/chat priced as PRICED_DEMO_CHAT says, written to `directory`. */
export function pricedCatalogue(): CatalogueFile {
  const catalogue = readCatalogue();
  for (const provider of catalogue.models.find((model) => model.id === 'demo/chat')?.providers ?? [])
    Object.assign(provider.pricing, PRICED_DEMO_CHAT[provider.name] ?? {});
  return catalogue;
}

export function writePricedCatalogue(directory: string): string {
  const path = join(directory, 'catalogue.priced.json');
  writeFileSync(path, JSON.stringify(pricedCatalogue()));
  return path;
}
