import { Module } from '@nestjs/common';
import { type ClientProxy } from '@nestjs/microservices';
import {
  type DependencyCheck,
  Readiness,
  RPC_CLIENT_PROXY,
  TRANSPORT_OPTIONS,
  type TransportOptions,
} from '@gw/platform';
import { createBlobStore } from '@gw/platform/blobs';
import { API_GATEWAY_ENV, type ApiGatewayEnv } from '../api-gateway.env';
import { gatewayReadiness } from './gateway-readiness';
import { HealthController } from './health.controller';

/** Dependencies of the process hosting the gateway that its readiness answers for too (the embedded mode's database). */
export const HOST_READINESS_CHECKS = Symbol('HOST_READINESS_CHECKS');

/** `/api/health` (liveness) and `/api/health/ready` (readiness); main.ts fails readiness on SIGTERM. */
@Module({
  controllers: [HealthController],
  providers: [
    {
      provide: Readiness,
      inject: [TRANSPORT_OPTIONS, RPC_CLIENT_PROXY, API_GATEWAY_ENV, HOST_READINESS_CHECKS],
      useFactory: (
        transport: TransportOptions,
        proxy: ClientProxy,
        env: ApiGatewayEnv,
        hostChecks: readonly DependencyCheck[],
      ) => gatewayReadiness(transport, proxy, createBlobStore(env), hostChecks),
    },
  ],
  exports: [Readiness],
})
export class GatewayHealthModule {}
