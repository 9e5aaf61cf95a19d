import { OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ModelCatalogueEntryDto, ModelProviderDto } from '@gw/dto';

export const PROVIDER_WIRES = ['openai', 'anthropic'] as const;
export type ProviderWire = (typeof PROVIDER_WIRES)[number];

/** How to reach a provider; never shown to clients. `${VAR}` in baseUrl is replaced from the environment. */
export class ProviderRoutingConfig {
  @IsIn(PROVIDER_WIRES)
  wire!: ProviderWire;

  @IsString()
  @Matches(/^(https?:\/\/|\$\{[A-Z0-9_]+\})/, {
    message: 'baseUrl must be an http(s) URL or start with ${VARIABLE}',
  })
  baseUrl!: string;

  @IsString()
  @MinLength(1)
  model!: string;

  /** The variable that holds the provider's API key. */
  @IsOptional()
  @Matches(/^[A-Z][A-Z0-9_]*$/, { message: 'apiKeyEnv must name an environment variable' })
  apiKeyEnv?: string;

  /**
   * How long a stream may wait for the provider's first output before the next provider is tried;
   * FIRST_TOKEN_TIMEOUT_MS when absent.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3_600_000)
  firstTokenTimeoutMs?: number;
}

export class CatalogueProviderConfig extends ModelProviderDto {
  @ValidateNested()
  @Type(() => ProviderRoutingConfig)
  routing!: ProviderRoutingConfig;
}

/**
 * A catalogue entry as written in the file: top_provider is derived from the first provider and
 * endpoints from the type (ENDPOINTS_BY_MODEL_TYPE), so the file writes neither.
 */
export class CatalogueModelConfig extends OmitType(ModelCatalogueEntryDto, [
  'top_provider',
  'providers',
  'endpoints',
] as const) {
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => CatalogueProviderConfig)
  providers!: CatalogueProviderConfig[];
}

export class CatalogueFileConfig {
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => CatalogueModelConfig)
  models!: CatalogueModelConfig[];
}
