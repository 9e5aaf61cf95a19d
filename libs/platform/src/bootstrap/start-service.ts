import { type DynamicModule, type INestMicroservice, type LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions } from '@nestjs/microservices';
import { type DatabaseRuntime, DatabaseRuntimeModule } from '../database/database-runtime';
import { RpcErrorFilter } from '../errors/rpc-error.filter';
import { MetricsModule } from '../observability/metrics.module';
import { InProcessServer } from '../transport/in-process-server';
import { LivenessServerNats } from '../transport/liveness-server-nats';
import { type TransportOptions } from '../transport/transport-options';

/**
 * Microservice options for a service: a NATS queue group named after it that redeems claim checks
 * and answers its callers' liveness probes, or the in-process bus.
 */
export function serviceTransport(transport: TransportOptions, queue: string | null): MicroserviceOptions {
  if (transport.kind === 'in-process') return { strategy: new InProcessServer(transport.bus) };
  return {
    strategy: new LivenessServerNats(
      { servers: [transport.servers], ...transport.auth, ...(queue ? { queue } : {}) },
      transport.blobs ?? null,
      transport.drainTimeoutMs,
    ),
  };
}

/** The root of a service's app: its module, and its metrics labelled with its name. */
@Module({})
class ServiceRoot {}

/**
 * Starts a NATS-only service with the shared error filter and its own metrics. Messages are validated by each handler's
 * contract (HandlesRpc / HandlesEvent), not by a global pipe: a global pipe validates by the emitted
 * parameter type and silently skips interfaces. Signal handling is left to the process: a service's
 * own main drains it (runServiceMain), the embedded host closes its apps in order.
 */
export async function startService(
  module: DynamicModule,
  transport: TransportOptions,
  queue: string,
  logger: LoggerService,
  database?: DatabaseRuntime,
): Promise<INestMicroservice> {
  const root: DynamicModule = {
    module: ServiceRoot,
    imports: [
      MetricsModule.forApp(queue),
      ...(database ? [DatabaseRuntimeModule.forRoot(database)] : []),
      module,
    ],
  };
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(root, {
    ...serviceTransport(transport, queue),
    logger,
    // A failing provider is rethrown to the caller's start-up handling instead of exiting the process.
    abortOnError: false,
  });
  app.useGlobalFilters(new RpcErrorFilter());
  await app.listen();
  return app;
}
