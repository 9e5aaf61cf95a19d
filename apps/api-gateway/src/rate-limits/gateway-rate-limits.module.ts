import { Global, Module } from '@nestjs/common';
import {
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
import {
  type GuessLimits,
  guessBackoffs,
  LoginThrottle,
  OperatorThrottle,
} from './credential-attempt-throttle';

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
          ? new JetStreamRateLimitStore(transport.servers, transport.auth)
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
        new LoginThrottle(
          guessBackoffs(
            store,
            authLimits(env, {
              address: env.AUTH_FREE_FAILURES_PER_ADDRESS,
              guesser: env.AUTH_FREE_FAILURES_PER_ACCOUNT,
              account: env.AUTH_FREE_FAILURES_PER_ACCOUNT,
            }),
          ),
        ),
    },
    {
      provide: OperatorThrottle,
      inject: [RateLimitStore, API_GATEWAY_ENV],
      // One operator account: its guessers are the client addresses, each with the per-address bound.
      useFactory: (store: RateLimitStore, env: ApiGatewayEnv) =>
        new OperatorThrottle(
          guessBackoffs(
            store,
            authLimits(env, {
              address: env.AUTH_FREE_FAILURES_PER_ADDRESS,
              guesser: env.AUTH_FREE_FAILURES_PER_ADDRESS,
              account: env.AUTH_FREE_FAILURES_PER_ADDRESS,
            }),
          ),
        ),
    },
    ApiKeyRateLimitOverrides,
    ApiKeyRateLimitGuard,
  ],
  exports: [ApiKeyRateLimitOverrides, RateLimiter, LoginThrottle, OperatorThrottle, ApiKeyRateLimitGuard],
})
export class GatewayRateLimitsModule {}

function authLimits(env: ApiGatewayEnv, freeFailures: GuessLimits['freeFailures']): GuessLimits {
  return { freeFailures, baseDelayMs: env.AUTH_BACKOFF_BASE_MS, maxDelayMs: env.AUTH_BACKOFF_MAX_MS };
}
