import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { EnvSchema, NatsClientEnv, WithHttpListener, WithJwtSecret } from '@gw/platform';
import { WithBlobStore } from '@gw/platform/blobs';

/** The wait of a synchronous media or image request; the embedded mode reads it too and hands it on. */
export function WithSyncWait<Base extends EnvSchema>(base: Base) {
  class SyncWaitEnv extends base {
    /** Longest wait of a synchronous media or image request before it turns into a pending record. */
    @IsInt()
    @Min(1)
    SYNC_WAIT_MS: number = 120_000;
  }
  return SyncWaitEnv;
}

export class ApiGatewayEnv extends WithBlobStore(
  WithSyncWait(WithJwtSecret(WithHttpListener(NatsClientEnv, 3000))),
) {
  /** Authorizes the operator API under /api/admin. */
  @IsString()
  @MinLength(16)
  ADMIN_TOKEN!: string;

  @IsInt()
  @Min(0)
  API_KEY_CACHE_TTL_MS: number = 60_000;

  /** Comma-separated hosts a transcription `file` URL may reach even when they resolve to loopback or private addresses. */
  @IsString()
  TRANSCRIPTION_URL_ALLOW_HOSTS: string = '';

  /** Bound on fetching a transcription `file` URL, connection to last byte. */
  @IsInt()
  @Min(100)
  @Max(120_000)
  TRANSCRIPTION_URL_TIMEOUT_MS: number = 15_000;

  /** The most a route reads of a JSON body unless it takes files or audio (those set their own limit). */
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  JSON_BODY_LIMIT_BYTES: number = 4 * 1024 * 1024;

  /**
   * How long a request body may go without a byte arriving (the gateway waiting for it) before the
   * request is answered 408 and its connection closed.
   */
  @IsInt()
  @Min(100)
  @Max(300_000)
  HTTP_BODY_IDLE_TIMEOUT_MS: number = 15_000;

  /**
   * Comma-separated addresses or CIDR ranges of the proxies in front of the gateway (or `loopback`,
   * `linklocal`, `uniquelocal`). Only their X-Forwarded-For hops are believed; empty trusts none.
   */
  @IsString()
  TRUSTED_PROXIES: string = '';

  /** Rate limits of API keys and of their organizations, shared by every replica; 0 is unlimited. */
  @IsInt()
  @Min(0)
  RATE_LIMIT_RPM_PER_KEY: number = 1_200;

  @IsInt()
  @Min(0)
  RATE_LIMIT_CONCURRENT_PER_KEY: number = 32;

  @IsInt()
  @Min(0)
  RATE_LIMIT_RPM_PER_ORGANIZATION: number = 6_000;

  @IsInt()
  @Min(0)
  RATE_LIMIT_CONCURRENT_PER_ORGANIZATION: number = 128;

  /** Failed console logins of one account allowed before the backoff starts. */
  @IsInt()
  @Min(0)
  AUTH_FREE_FAILURES_PER_ACCOUNT: number = 5;

  /** Failed logins and operator API attempts from one client address before the backoff starts. */
  @IsInt()
  @Min(0)
  AUTH_FREE_FAILURES_PER_ADDRESS: number = 20;

  /** The first wait of the backoff; it doubles with every further failure up to AUTH_BACKOFF_MAX_MS. */
  @IsInt()
  @Min(1)
  AUTH_BACKOFF_BASE_MS: number = 1_000;

  @IsInt()
  @Min(1)
  @Max(3_600_000)
  AUTH_BACKOFF_MAX_MS: number = 900_000;
}

export const API_GATEWAY_ENV = Symbol('API_GATEWAY_ENV');
