import { IsIn, IsInt, IsString, Max, Min } from 'class-validator';
import type { LogFormat } from '../logging/logger';

/** Variables every service reads. */
export class ServiceEnv {
  @IsString()
  NATS_URL: string = 'nats://127.0.0.1:4222';

  @IsString()
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/gateway';

  @IsInt()
  @Min(100)
  @Max(600_000)
  RPC_TIMEOUT_MS: number = 10_000;

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: LogFormat = 'pretty';

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';

  /** Port of the liveness/readiness endpoint of a NATS-only service (0 disables it). */
  @IsInt()
  @Min(0)
  @Max(65535)
  HEALTH_PORT: number = 0;
}
