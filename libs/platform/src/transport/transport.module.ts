import { DynamicModule, Global, Module } from '@nestjs/common';
import { ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import { DurableEvents, JetStreamDurableEvents, InProcessDurableEvents } from '../events/durable-events';
import { InProcessClient } from './in-process-client';
import { RpcClient } from './rpc-client';
import { RPC_CLIENT_PROXY, TRANSPORT_OPTIONS, TransportOptions } from './transport-options';

/** Provides the RpcClient and the durable event bus for whichever transport the app runs on. */
@Global()
@Module({})
export class TransportModule {
  static forRoot(options: TransportOptions): DynamicModule {
    return {
      module: TransportModule,
      providers: [
        { provide: TRANSPORT_OPTIONS, useValue: options },
        {
          provide: RPC_CLIENT_PROXY,
          useFactory: (): ClientProxy =>
            options.kind === 'nats'
              ? ClientProxyFactory.create({
                  transport: Transport.NATS,
                  options: { servers: [options.servers] },
                })
              : new InProcessClient(options.bus),
        },
        RpcClient,
        {
          provide: DurableEvents,
          useFactory: (): DurableEvents =>
            options.kind === 'nats'
              ? new JetStreamDurableEvents(options.servers)
              : new InProcessDurableEvents(options.bus),
        },
      ],
      exports: [RpcClient, DurableEvents, TRANSPORT_OPTIONS],
    };
  }
}
