import { IsIn, IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';

/** The embedded mode's own variables (DESIGN.md §3); everything else is derived from them. */
export class EmbeddedEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  HOST: string = '0.0.0.0';

  @IsString()
  DATA_DIR: string = '.data';

  /** Overrides the generated operator token. */
  @IsOptional()
  @IsString()
  @MinLength(16)
  ADMIN_TOKEN?: string;

  @IsInt()
  @Min(1)
  SYNC_WAIT_MS: number = 120_000;

  /**
   * Port of the embedded PostgreSQL, used as given. Unset: the port DATA_DIR remembers, else 54329,
   * else a free one when that is busy.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  EMBEDDED_PG_PORT?: number;

  @IsString()
  CATALOGUE_FILE: string = 'config/catalogue.demo.json';

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';
}
