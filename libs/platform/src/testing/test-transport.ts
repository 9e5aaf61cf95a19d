import { Test } from '@nestjs/testing';
import { DurableEvents } from '../events/durable-events';
import { RpcClient } from '../transport/rpc-client';
import { type TransportOptions } from '../transport/transport-options';
import { TransportModule } from '../transport/transport.module';

/** What a spec needs to talk to services as the gateway does: the typed client and the durable events. */
export interface TestTransport {
  rpc: RpcClient;
  events: DurableEvents;
  close(): Promise<void>;
}

/** Connects a spec to `transport` through the same module the apps use. */
export async function connectTestTransport(transport: TransportOptions): Promise<TestTransport> {
  const moduleRef = await Test.createTestingModule({
    imports: [TransportModule.forRoot(transport)],
  }).compile();
  await moduleRef.init();
  return {
    rpc: moduleRef.get(RpcClient),
    events: moduleRef.get(DurableEvents),
    close: () => moduleRef.close(),
  };
}
