import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { WithSyncWait } from '@gw/app-api-gateway';
import { WithCatalogueFile } from '@gw/app-inference';
import { LogLevelEnv, WithHttpListener } from '@gw/platform';

/** The embedded mode's own variables (DESIGN.md §3); everything else is derived from them. */
export class EmbeddedEnv extends WithCatalogueFile(WithSyncWait(WithHttpListener(LogLevelEnv, 3000))) {
  /**
   * Loopback unless told otherwise: the process prints a demo key and an admin token, and a
   * developer's machine should not serve them to its network. A container sets 0.0.0.0.
   */
  override HOST: string = '127.0.0.1';

  @IsString()
  DATA_DIR: string = '.data';

  /** Overrides the generated operator token. */
  @IsOptional()
  @IsString()
  @MinLength(16)
  ADMIN_TOKEN?: string;

  /**
   * Port of the embedded PostgreSQL, used as given. Unset: the port DATA_DIR remembers, else 54329,
   * else a free one when that is busy.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(65535)
  EMBEDDED_PG_PORT?: number;
}
