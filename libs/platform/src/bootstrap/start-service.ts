import { type DynamicModule, type INestMicroservice, type LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { RpcErrorFilter } from '../errors/rpc-error.filter';
import { InProcessServer } from '../transport/in-process-server';
import { type TransportOptions } from '../transport/transport-options';
import { createValidationPipe } from '../validation/validation';

/** Microservice options for a service: a NATS queue group named after it, or the in-process bus. */
export function serviceTransport(transport: TransportOptions, queue: string | null): MicroserviceOptions {
  if (transport.kind === 'in-process') return { strategy: new InProcessServer(transport.bus) };
  return {
    transport: Transport.NATS,
    options: { servers: [transport.servers], ...(queue ? { queue } : {}) },
  };
}

/**
 * Starts a NATS-only service with the shared error filter and validation pipe. Signal handling is
 * left to the process: a service's own main enables it, the embedded host closes its apps in order.
 */
export async function startService(
  module: DynamicModule,
  transport: TransportOptions,
  queue: string,
  logger: LoggerService,
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    ...serviceTransport(transport, queue),
    logger,
  });
  app.useGlobalFilters(new RpcErrorFilter());
  app.useGlobalPipes(createValidationPipe());
  await app.listen();
  return app;
}
