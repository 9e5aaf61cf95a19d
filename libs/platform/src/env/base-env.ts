// class-transformer converts a variable by the type in its decorator metadata, which needs the Reflect API.
import 'reflect-metadata';
import { IsIn, IsInt, IsString, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';
import type { LogFormat } from '../logging/logger';

/**
 * What an env schema extends; each With… mixin below adds one group of variables to it, so a
 * variable that several apps read is declared (and validated) once.
 */
// A mixin's base must be constructible with `...args: any[]` (TS2545).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EnvSchema = new (...args: any[]) => object;

/** How much a process logs; the embedded mode reads only this (it fixes the format itself). */
export class LogLevelEnv {
  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';
}

/** How a process logs. */
export class LoggingEnv extends LogLevelEnv {
  @IsIn(['json', 'pretty'])
  LOG_FORMAT: LogFormat = 'pretty';
}

/** A process that calls the services over NATS. */
export class NatsClientEnv extends LoggingEnv {
  @IsString()
  NATS_URL: string = 'nats://127.0.0.1:4222';

  @IsInt()
  @Min(100)
  @Max(600_000)
  RPC_TIMEOUT_MS: number = 10_000;

  /**
   * On SIGTERM, how long the process lets the work in flight finish (HTTP requests and streams on
   * the gateway, handlers on a service) before it cuts what is left; the longest request (a chat or
   * a transcription) may take 600 s. Kubernetes' terminationGracePeriodSeconds must exceed it.
   */
  @IsInt()
  @Min(0)
  @Max(3_600_000)
  SHUTDOWN_GRACE_MS: number = 600_000;

  /** The NATS user this process connects as (one per app, deploy/nats); unset on an open bus. */
  @ValidateIf((env: NatsClientEnv) => env.NATS_USER !== undefined || env.NATS_PASSWORD !== undefined)
  @IsString()
  @MinLength(1)
  NATS_USER?: string;

  @ValidateIf((env: NatsClientEnv) => env.NATS_USER !== undefined || env.NATS_PASSWORD !== undefined)
  // nats-server reads the password from its environment as a config token: one that starts with a
  // digit or holds a space would be read as a number or cut, and match no client.
  @Matches(/^[A-Za-z][A-Za-z0-9._~-]{15,}$/, {
    message: 'NATS_PASSWORD must be 16 or more letters, digits or ._~- and start with a letter',
  })
  NATS_PASSWORD?: string;

  /** A CA file to verify NATS's TLS certificate with; a server that requires TLS gets it without one. */
  @ValidateIf((env: NatsClientEnv) => env.NATS_TLS_CA_FILE !== undefined)
  @IsString()
  NATS_TLS_CA_FILE?: string;
}

/** Variables every service reads. */
export class ServiceEnv extends NatsClientEnv {
  @IsString()
  DATABASE_URL: string = 'postgres://postgres@127.0.0.1:5432/gateway';

  /** Connections each replica's pool may open: PostgreSQL's max_connections must cover every replica's. */
  @IsInt()
  @Min(1)
  @Max(1_000)
  DB_POOL_MAX: number = 10;

  /**
   * `false` where a migrations Job applies the migrations with a DDL-capable role and the service
   * connects with one that may only read and write rows; it then refuses to start while one is pending.
   */
  @IsIn(['true', 'false'])
  DB_MIGRATE_ON_START: 'true' | 'false' = 'true';

  /** Port of the liveness/readiness endpoint of a NATS-only service (0 disables it). */
  @IsInt()
  @Min(0)
  @Max(65535)
  HEALTH_PORT: number = 0;
}

/** Where a process's HTTP server listens. */
export function WithHttpListener<Base extends EnvSchema>(base: Base, defaultPort: number) {
  class HttpListenerEnv extends base {
    @IsInt()
    @Min(0)
    @Max(65535)
    PORT: number = defaultPort;

    @IsString()
    HOST: string = '0.0.0.0';
  }
  return HttpListenerEnv;
}

/**
 * The console JWTs (HS256): auth signs them with the secret for the lifetime, the gateway verifies
 * them with the secret and refuses one that claims to live longer.
 */
export function WithJwtSecret<Base extends EnvSchema>(base: Base) {
  class JwtSecretEnv extends base {
    @IsString()
    @MinLength(16)
    JWT_SECRET!: string;

    @IsInt()
    @Min(60)
    @Max(30 * 24 * 3600)
    JWT_TTL_SECONDS: number = 3600;
  }
  return JwtSecretEnv;
}
