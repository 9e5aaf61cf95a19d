import { Module } from '@nestjs/common';
import { type ClientProxy } from '@nestjs/microservices';
import { Readiness, RPC_CLIENT_PROXY, TRANSPORT_OPTIONS, type TransportOptions } from '@gw/platform';
import { createBlobStore } from '@gw/platform/blobs';
import { API_GATEWAY_ENV, type ApiGatewayEnv } from '../api-gateway.env';
import { gatewayReadiness } from './gateway-readiness';
import { HealthController } from './health.controller';

/** `/api/health` (liveness) and `/api/health/ready` (readiness); main.ts fails readiness on SIGTERM. */
@Module({
  controllers: [HealthController],
  providers: [
    {
      provide: Readiness,
      inject: [TRANSPORT_OPTIONS, RPC_CLIENT_PROXY, API_GATEWAY_ENV],
      useFactory: (transport: TransportOptions, proxy: ClientProxy, env: ApiGatewayEnv) =>
        gatewayReadiness(transport, proxy, createBlobStore(env)),
    },
  ],
  exports: [Readiness],
})
export class GatewayHealthModule {}
