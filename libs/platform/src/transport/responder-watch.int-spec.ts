import { Controller, INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test, TestingModule } from '@nestjs/testing';
import { rpc } from '@gw/contracts';
import { expectEventually, startTestNats, TestNats, uniqueSuffix } from '@gw/testing';
import { IsInt, Min } from 'class-validator';
import { serviceTransport } from '../bootstrap/start-service';
import { RpcErrorFilter } from '../errors/rpc-error.filter';
import { HandlesRpc } from './handles';
import { RpcClient } from './rpc-client';
import { TransportModule } from './transport.module';

class WaitRequest {
  @IsInt()
  @Min(0)
  ms!: number;
}

const Wait = rpc<WaitRequest, { waited: number }>(`test.${uniqueSuffix()}.wait`, WaitRequest);
/** Far above every bound below: a call that ends early was ended by the watch, not by its timeout. */
const RPC_TIMEOUT_MS = 20_000;
/** "About two seconds" from the loss to the caller's answer, with room for a busy machine. */
const NOTICED_WITHIN_MS = 3_000;

let started = 0;
/** Wakes the handlers still waiting, so that none outlives the test file. */
const sleeping = new Set<() => void>();

@Controller()
class WaitHandler {
  @HandlesRpc(Wait)
  async wait(request: WaitRequest): Promise<{ waited: number }> {
    started++;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        sleeping.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, request.ms);
      sleeping.add(wake);
    });
    return { waited: request.ms };
  }
}

@Module({ controllers: [WaitHandler] })
class WaitServiceModule {}

/**
 * A call in flight over NATS ends with service_unavailable within seconds when its answer can no
 * longer come (the last service replica is gone, or the connection to NATS is lost), and waits on
 * for a service that is merely slow.
 */
describe('RpcClient watching its responders over NATS', () => {
  let nats: TestNats;
  let service: INestMicroservice;
  let caller: TestingModule;
  let client: RpcClient;

  beforeAll(async () => {
    nats = await startTestNats();
    const options = { kind: 'nats', servers: nats.url, rpcTimeoutMs: RPC_TIMEOUT_MS } as const;
    // No wait for the handlers in flight when it closes: its close stands for a process that is gone.
    service = await NestFactory.createMicroservice(WaitServiceModule, {
      ...serviceTransport({ ...options, drainTimeoutMs: 0 }, 'test'),
      logger: false,
    });
    service.useGlobalFilters(new RpcErrorFilter());
    await service.listen();
    caller = await Test.createTestingModule({ imports: [TransportModule.forRoot(options)] }).compile();
    await caller.init();
    client = caller.get(RpcClient);
  });

  afterAll(async () => {
    sleeping.forEach((wake) => wake());
    await caller?.close();
    await service?.close();
    await nats?.stop();
  });

  /** The call's outcome and how long after the start of `lose()` it came, lost once the handler runs. */
  async function callAndLose(ms: number, lose: () => Promise<void>) {
    const before = started;
    const call = client.request(Wait, { ms }).then(
      (reply) => ({ reply }),
      (error: unknown) => ({ error }),
    );
    await expectEventually(() => expect(started).toBe(before + 1));
    const lostAt = Date.now();
    const lost = lose();
    const outcome = await call;
    const afterMs = Date.now() - lostAt;
    await lost;
    return { outcome, afterMs };
  }

  it('waits for a responder that is slow but there, past the watch periods', async () => {
    const { outcome } = await callAndLose(3_500, () => Promise.resolve());
    expect(outcome).toEqual({ reply: { waited: 3_500 } });
  });

  it('ends a call within seconds when the connection to NATS is lost', async () => {
    const { outcome, afterMs } = await callAndLose(RPC_TIMEOUT_MS, () => nats.restart(8_000));
    expect(outcome).toEqual({ error: expect.objectContaining({ code: 'service_unavailable' }) });
    expect(afterMs).toBeLessThan(NOTICED_WITHIN_MS);
  });

  it('ends a call within seconds when the last process serving it is gone', async () => {
    await expectEventually(async () => expect(await client.request(Wait, { ms: 0 })).toEqual({ waited: 0 }), {
      timeoutMs: 15_000,
    });
    const { outcome, afterMs } = await callAndLose(RPC_TIMEOUT_MS, () => service.close());
    expect(outcome).toEqual({ error: expect.objectContaining({ code: 'service_unavailable' }) });
    expect(afterMs).toBeLessThan(NOTICED_WITHIN_MS);
  });
});
