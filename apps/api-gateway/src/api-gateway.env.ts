import { IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { EnvSchema, NatsClientEnv, WithHttpListener, WithJwtSecret } from '@gw/platform';

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

export class ApiGatewayEnv extends WithSyncWait(WithJwtSecret(WithHttpListener(NatsClientEnv, 3000))) {
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
}

export const API_GATEWAY_ENV = Symbol('API_GATEWAY_ENV');
