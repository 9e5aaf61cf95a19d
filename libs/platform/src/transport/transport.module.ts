import { DynamicModule, Global, Module } from '@nestjs/common';
import { ClientProxy, ClientProxyFactory, Transport } from '@nestjs/microservices';
import { DurableEvents, JetStreamDurableEvents, InProcessDurableEvents } from '../events/durable-events';
import { CALLER_HEADER, CALLER_ID, CallerPresence } from './caller-presence';
import { InProcessClient } from './in-process-client';
import { RpcClient } from './rpc-client';
import { RPC_CLIENT_PROXY, TRANSPORT_OPTIONS, TransportOptions } from './transport-options';

/** Provides the RpcClient, caller presence and the durable event bus for whichever transport the app runs on. */
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
                  // Names this process in every request, for services that ask whether it is still there.
                  options: {
                    servers: [options.servers],
                    ...options.auth,
                    headers: { [CALLER_HEADER]: CALLER_ID },
                  },
                })
              : new InProcessClient(options.bus),
        },
        RpcClient,
        CallerPresence,
        {
          provide: DurableEvents,
          useFactory: (): DurableEvents =>
            options.kind === 'nats'
              ? new JetStreamDurableEvents(options.servers, { auth: options.auth })
              : new InProcessDurableEvents(options.bus),
        },
      ],
      exports: [RpcClient, CallerPresence, DurableEvents, TRANSPORT_OPTIONS, RPC_CLIENT_PROXY],
    };
  }
}
