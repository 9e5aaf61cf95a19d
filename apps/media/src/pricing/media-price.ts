import type { GenerationRequestType, MediaUsage } from '@gw/contracts';
import { costNumber, generationCost, type Pricing, type TierParameters, type Usage } from '@gw/pricing';
import type Decimal from 'decimal.js';
import { characterCount, numberParam, textParam } from '../params/media-params';

/**
 * What a media generation is billed for, from the parameters it runs with: speech by the characters
 * of its text, images, videos and operations per unit (`n` images or `duration` seconds by their
 * tier; see generationCost's unit_parameters).
 */
export function mediaBilledUsage(requestType: GenerationRequestType, params: Record<string, unknown>): Usage {
  if (requestType === 'audio') return { characters: characterCount(textParam(params, 'prompt')) };
  return { unit_parameters: tierParameters(params) };
}

/** The exact price of a generation: the catalogue prices it from its parameters, so it is known before it runs. */
export function mediaPrice(
  pricing: Pricing,
  requestType: GenerationRequestType,
  params: Record<string, unknown>,
): Decimal {
  return generationCost(pricing, mediaBilledUsage(requestType, params));
}

/** The interface's Usage object of a generation that cost `cost`. */
export function mediaUsage(
  requestType: GenerationRequestType,
  params: Record<string, unknown>,
  cost: Decimal.Value,
  tokens: Pick<MediaUsage, 'input_tokens' | 'output_tokens' | 'total_tokens'> | null = null,
): MediaUsage {
  const rub = costNumber(cost);
  const money = { cost_rub: rub, cost: rub };
  if (requestType === 'audio') {
    return { input_units: characterCount(textParam(params, 'prompt')), output_units: 1, ...money };
  }
  if (requestType === 'video') {
    return { output_units: 1, duration_seconds: numberParam(params, 'duration', 0), ...money };
  }
  // The images API's Usage object carries token counts, the provider's where it reports them; the bill is per image.
  return {
    output_units: numberParam(params, 'n', 1),
    input_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    ...tokens,
    ...money,
  };
}

/** The scalar parameters, as tier conditions compare them. */
function tierParameters(params: Record<string, unknown>): TierParameters {
  const scalars: TierParameters = {};
  for (const [name, value] of Object.entries(params)) {
    if (['string', 'number', 'boolean'].includes(typeof value))
      scalars[name] = value as string | number | boolean;
  }
  return scalars;
}
