import { Global, Module } from '@nestjs/common';
import {
  BackoffPolicy,
  FailureBackoff,
  InMemoryRateLimitStore,
  JetStreamRateLimitStore,
  RateLimiter,
  RateLimitStore,
  TRANSPORT_OPTIONS,
  TransportOptions,
} from '@gw/platform';
import { API_GATEWAY_ENV, ApiGatewayEnv } from '../api-gateway.env';
import { ApiKeyRateLimitOverrides } from './api-key-rate-limit-overrides';
import { ApiKeyRateLimitGuard } from './api-key-rate-limit.guard';
import { LoginThrottle, OperatorThrottle } from './credential-attempt-throttle';

/** Failures of an account or an address are forgotten an hour after the last one. */
const FAILURE_MEMORY_MS = 60 * 60_000;

/**
 * The operator account is one for everybody, so a low bound would let anyone lock the operator out
 * with a few wrong tokens; a long random ADMIN_TOKEN is not found in a hundred guesses, so the
 * account backoff only has to stop guessing spread over many addresses.
 */
const OPERATOR_ACCOUNT_FREE_FAILURES = 100;

/**
 * The gateway's limits. Replicas share their counters through JetStream; the embedded mode, its
 * only replica, keeps them in memory.
 */
@Global()
@Module({
  providers: [
    {
      provide: RateLimitStore,
      inject: [TRANSPORT_OPTIONS],
      useFactory: (transport: TransportOptions): RateLimitStore =>
        transport.kind === 'nats'
          ? new JetStreamRateLimitStore(transport.servers)
          : new InMemoryRateLimitStore(),
    },
    {
      provide: RateLimiter,
      inject: [RateLimitStore],
      useFactory: (store: RateLimitStore) => new RateLimiter(store),
    },
    {
      provide: LoginThrottle,
      inject: [RateLimitStore, API_GATEWAY_ENV],
      useFactory: (store: RateLimitStore, env: ApiGatewayEnv) =>
        new LoginThrottle(...backoffs(store, env, env.AUTH_FREE_FAILURES_PER_ACCOUNT)),
    },
    {
      provide: OperatorThrottle,
      inject: [RateLimitStore, API_GATEWAY_ENV],
      useFactory: (store: RateLimitStore, env: ApiGatewayEnv) =>
        new OperatorThrottle(...backoffs(store, env, OPERATOR_ACCOUNT_FREE_FAILURES)),
    },
    ApiKeyRateLimitOverrides,
    ApiKeyRateLimitGuard,
  ],
  exports: [ApiKeyRateLimitOverrides, RateLimiter, LoginThrottle, OperatorThrottle, ApiKeyRateLimitGuard],
})
export class GatewayRateLimitsModule {}

/** Per client address, then per account. */
function backoffs(
  store: RateLimitStore,
  env: ApiGatewayEnv,
  accountFreeFailures: number,
): [FailureBackoff, FailureBackoff] {
  const policy = (freeFailures: number): BackoffPolicy => ({
    freeFailures,
    baseDelayMs: env.AUTH_BACKOFF_BASE_MS,
    maxDelayMs: env.AUTH_BACKOFF_MAX_MS,
    memoryMs: Math.max(FAILURE_MEMORY_MS, env.AUTH_BACKOFF_MAX_MS),
  });
  return [
    new FailureBackoff(store, policy(env.AUTH_FREE_FAILURES_PER_ADDRESS)),
    new FailureBackoff(store, policy(accountFreeFailures)),
  ];
}
