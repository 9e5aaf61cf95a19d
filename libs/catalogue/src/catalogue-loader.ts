import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type ModelCatalogueEntryDto } from '@gw/dto';
import { missingBilledUnits, type Pricing, unitParamProblem } from '@gw/pricing';
import {
  CatalogueFileConfig,
  type CatalogueModelConfig,
  type CatalogueProviderConfig,
  type ProviderWire,
} from './catalogue-config';
import { ENDPOINTS_BY_MODEL_TYPE } from './model-endpoints';
import { StartupError } from '@gw/platform';

export class CatalogueError extends StartupError {
  constructor(file: string, problem: string) {
    super(`Invalid model catalogue ${file}: ${problem}`);
    this.name = 'CatalogueError';
  }
}

/** A provider of a model with everything needed to call it. */
export interface ProviderRoute {
  name: string;
  wire: ProviderWire;
  baseUrl: string;
  upstreamModel: string;
  apiKey: string | null;
  pricing: Pricing;
  /** The most prompt tokens one request may send: context_length and per_request_limits.prompt_tokens, whichever is lower; null: unbounded. */
  maxPromptTokens: number | null;
  /** The most completion tokens one request may ask for: max_completion_tokens and per_request_limits.completion_tokens, whichever is lower. */
  maxCompletionTokens: number | null;
  /** Request parameters the provider honours (`tools`, `response_format`, …). */
  supportedParameters: string[];
  /** The reasoning efforts the provider accepts, or null when it declares none (any value passes). */
  reasoningEfforts: string[] | null;
  /** Null: the service's default first-token deadline applies. */
  firstTokenTimeoutMs: number | null;
}

export interface CatalogueModel {
  entry: ModelCatalogueEntryDto;
  routes: ProviderRoute[];
}

/** Reads and validates the catalogue; `variables` fill `${VAR}` in base URLs and hold the API keys named by apiKeyEnv. */
export function loadCatalogue(file: string, variables: Record<string, string | undefined>): CatalogueModel[] {
  const path = resolve(process.cwd(), file);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CatalogueError(path, (err as Error).message);
  }
  const config = plainToInstance(CatalogueFileConfig, raw);
  const errors = validateSync(config, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw new CatalogueError(path, describe(errors[0], ''));
  const seen = new Set<string>();
  return config.models.map((model, index) => {
    if (seen.has(model.id))
      throw new CatalogueError(path, `models[${index}].id: duplicate model id ${model.id}`);
    seen.add(model.id);
    const names = new Set(model.providers.map((p) => p.name));
    if (names.size !== model.providers.length)
      throw new CatalogueError(path, `models[${index}].providers: duplicate provider name`);
    checkModel(model, path, `models[${index}]`);
    return {
      entry: publicEntry(model),
      routes: model.providers.map((provider, p) =>
        route(provider, variables, path, `models[${index}].providers[${p}]`),
      ),
    };
  });
}

/**
 * Fail closed: a provider without a price for a unit its model type is billed in would bill 0 by
 * omission, and a pricing whose unitParam names nothing that counts would price nothing; a provider
 * that takes `dimensions` needs the model's maximum to check it against; embeddings exist on the
 * OpenAI wire only.
 */
function checkModel(model: CatalogueModelConfig, file: string, at: string): void {
  model.providers.forEach((provider, p) => {
    const missing = missingBilledUnits(model.type, provider.pricing);
    if (missing.length > 0) {
      throw new CatalogueError(
        file,
        `${at}.providers[${p}].pricing: model ${model.id} has no price for ${missing.join(', ')} at provider ${provider.name}`,
      );
    }
    const unitProblem = unitParamProblem(model.type, provider.pricing.unitParam, model.parameters);
    if (unitProblem)
      throw new CatalogueError(
        file,
        `${at}.providers[${p}].pricing.unitParam: ${unitProblem} (model ${model.id} at provider ${provider.name})`,
      );
    const maxDimensions = model.parameters['dimensions']?.max;
    if (
      provider.supported_parameters.includes('dimensions') &&
      !(typeof maxDimensions === 'number' && maxDimensions >= 1)
    ) {
      throw new CatalogueError(
        file,
        `${at}.parameters.dimensions.max: model ${model.id} takes dimensions at provider ${provider.name} but declares no maximum`,
      );
    }
    if (model.type === 'embedding' && provider.routing.wire !== 'openai') {
      throw new CatalogueError(
        file,
        `${at}.providers[${p}].routing.wire: embedding model ${model.id} needs the openai wire at provider ${provider.name}`,
      );
    }
  });
  model.operations.forEach((operation, o) => {
    const unitProblem = unitParamProblem(model.type, operation.pricing.unitParam, operation.parameters);
    if (unitProblem)
      throw new CatalogueError(
        file,
        `${at}.operations[${o}].pricing.unitParam: ${unitProblem} (operation ${operation.id} of model ${model.id})`,
      );
  });
}

function route(
  provider: CatalogueProviderConfig,
  variables: Record<string, string | undefined>,
  file: string,
  at: string,
): ProviderRoute {
  const baseUrl = provider.routing.baseUrl.replace(/\$\{([A-Z0-9_]+)\}/g, (_m, name: string) => {
    const value = variables[name];
    if (value === undefined || value === '')
      throw new CatalogueError(file, `${at}.routing.baseUrl: variable ${name} is not set`);
    return value;
  });
  if (!/^https?:\/\/[^/]/.test(baseUrl))
    throw new CatalogueError(file, `${at}.routing.baseUrl: ${baseUrl} is not an http(s) URL`);
  return {
    name: provider.name,
    wire: provider.routing.wire,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    upstreamModel: provider.routing.model,
    apiKey: provider.routing.apiKeyEnv ? (variables[provider.routing.apiKeyEnv] ?? null) : null,
    pricing: provider.pricing,
    maxPromptTokens: lowest(provider.context_length, provider.per_request_limits.prompt_tokens),
    maxCompletionTokens: lowest(
      provider.max_completion_tokens,
      provider.per_request_limits.completion_tokens,
    ),
    supportedParameters: [...provider.supported_parameters],
    reasoningEfforts: provider.parameters['reasoning_effort']?.values ?? null,
    firstTokenTimeoutMs: provider.routing.firstTokenTimeoutMs ?? null,
  };
}

function lowest(...limits: Array<number | null>): number | null {
  const set = limits.filter((limit): limit is number => typeof limit === 'number');
  return set.length > 0 ? Math.min(...set) : null;
}

function publicEntry(model: CatalogueModelConfig): ModelCatalogueEntryDto {
  const providers = model.providers.map(({ routing: _routing, ...descriptor }) => ({ ...descriptor }));
  const { name: _name, ...top } = providers[0];
  return {
    id: model.id,
    name: model.name,
    type: model.type,
    created: model.created,
    architecture: { ...model.architecture },
    top_provider: top,
    endpoints: [...ENDPOINTS_BY_MODEL_TYPE[model.type]],
    short_description: model.short_description,
    providers,
    parameters: model.parameters,
    operations: model.operations,
  };
}

function describe(error: ValidationError, prefix: string): string {
  const path = prefix
    ? /^\d+$/.test(error.property)
      ? `${prefix}[${error.property}]`
      : `${prefix}.${error.property}`
    : error.property;
  const constraint = Object.values(error.constraints ?? {})[0];
  if (constraint) return `${path}: ${constraint}`;
  const child = error.children?.[0];
  return child ? describe(child, path) : `${path}: invalid`;
}
