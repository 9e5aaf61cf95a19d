import { IsIn, IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import type { LogFormat } from '@gw/platform';

export class ApiGatewayEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsString()
  HOST: string = '0.0.0.0';

  @IsString()
  NATS_URL: string = 'nats://127.0.0.1:4222';

  @IsInt()
  @Min(100)
  @Max(600_000)
  RPC_TIMEOUT_MS: number = 10_000;

  /** Shared with auth, which signs the console JWTs that the gateway verifies. */
  @IsString()
  @MinLength(16)
  JWT_SECRET!: string;

  /** Authorizes the operator API under /api/admin. */
  @IsString()
  @MinLength(16)
  ADMIN_TOKEN!: string;

  @IsInt()
  @Min(0)
  API_KEY_CACHE_TTL_MS: number = 60_000;

  /** Longest wait of a synchronous media or image request before it turns into a pending record. */
  @IsInt()
  @Min(1)
  SYNC_WAIT_MS: number = 120_000;

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

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: LogFormat = 'pretty';

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';
}

export const API_GATEWAY_ENV = Symbol('API_GATEWAY_ENV');
