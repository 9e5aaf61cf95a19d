import {
  type CallHandler,
  Controller,
  type ExecutionContext,
  INestMicroservice,
  Module,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { Ctx } from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { DomainError, rpc, stream } from '@gw/contracts';
import { startTestNats, TestNats, uniqueSuffix } from '@gw/testing';
import { IsInt, IsString, Min } from 'class-validator';
import {
  concat,
  interval,
  map,
  take,
  tap,
  throwError,
  toArray,
  lastValueFrom,
  Observable,
  finalize,
} from 'rxjs';
import { NestFactory } from '@nestjs/core';
import { serviceTransport } from '../bootstrap/start-service';
import { RpcErrorFilter } from '../errors/rpc-error.filter';
import { HandedFrames, replyFrames } from './handed-frames';
import { HandlesRpc } from './handles';
import { SendsHeartbeats } from './heartbeats';
import { InProcessBus } from './in-process-bus';
import { RpcClient } from './rpc-client';
import { TransportOptions } from './transport-options';
import { TransportModule } from './transport.module';

const suffix = uniqueSuffix();
let nats: TestNats;
beforeAll(async () => {
  nats = await startTestNats();
});
afterAll(() => nats.stop());
class TextRequest {
  @IsString()
  text!: string;
}

class CountRequest {
  @IsInt()
  @Min(1)
  n!: number;
}

class EmptyRequest {}

const Echo = rpc<TextRequest, { text: string; at: string }>(`test.${suffix}.echo`, TextRequest);
const Fail = rpc<TextRequest, never>(`test.${suffix}.fail`, TextRequest);
const Crash = rpc<EmptyRequest, never>(`test.${suffix}.crash`, EmptyRequest);
const Count = stream<CountRequest, number>(`test.${suffix}.count`, CountRequest);
const Missing = rpc<EmptyRequest, object>(`test.${suffix}.missing`, EmptyRequest);
const Slow = rpc<EmptyRequest, object>(`test.${suffix}.slow`, EmptyRequest);
const SlowBeating = rpc<EmptyRequest, object>(`test.${suffix}.slow-beating`, EmptyRequest);
const HandedCount = stream<CountRequest, number>(`test.${suffix}.handed-count`, CountRequest);
const HandedBreak = stream<TextRequest, number>(`test.${suffix}.handed-break`, TextRequest);

let streamsFinalized = 0;
/** The values Nest's interceptors saw of the handed streams' answers. */
let valuesIntercepted = 0;

class ValueCounter implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(tap(() => (valuesIntercepted += 1)));
  }
}

@Controller()
class TestHandler {
  @HandlesRpc(Echo)
  echo(body: TextRequest) {
    return { text: body.text, at: new Date(0) };
  }

  @HandlesRpc(Fail)
  fail(_request: TextRequest): never {
    throw new DomainError('insufficient_balance', 'Not enough money', 'amount');
  }

  @HandlesRpc(Crash)
  crash(_request: EmptyRequest): never {
    throw new Error('secret internals');
  }

  @HandlesRpc(Count)
  count(body: CountRequest): Observable<number> {
    return interval(2).pipe(
      take(body.n),
      map((i) => i + 1),
      finalize(() => streamsFinalized++),
    );
  }

  @HandlesRpc(HandedCount)
  @UseInterceptors(ValueCounter)
  @SendsHeartbeats(50)
  handedCount(body: CountRequest, @Ctx() context: unknown): Observable<number | HandedFrames<number>> {
    const frames = interval(2).pipe(
      take(body.n),
      map((i) => i + 1),
      finalize(() => streamsFinalized++),
    );
    return replyFrames(context, frames);
  }

  @HandlesRpc(HandedBreak)
  @SendsHeartbeats(50)
  handedBreak(body: TextRequest, @Ctx() context: unknown): Observable<number | HandedFrames<number>> {
    const failure =
      body.text === 'domain'
        ? new DomainError('insufficient_balance', 'Not enough money', 'amount')
        : new Error('secret internals');
    return replyFrames(
      context,
      concat(
        interval(1).pipe(take(3)),
        throwError(() => failure),
      ),
    );
  }

  @HandlesRpc(Slow)
  async slow(_request: EmptyRequest): Promise<object> {
    await new Promise((resolve) => setTimeout(resolve, 500));
    return {};
  }

  @HandlesRpc(SlowBeating)
  @SendsHeartbeats(50)
  async slowBeating(_request: EmptyRequest): Promise<object> {
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { done: true };
  }
}

@Module({ controllers: [TestHandler] })
class TestServiceModule {}

describe.each<[string, () => TransportOptions]>([
  ['nats', () => ({ kind: 'nats', servers: nats.url, rpcTimeoutMs: 2_000 })],
  ['in-process', () => ({ kind: 'in-process', bus: new InProcessBus(), rpcTimeoutMs: 2_000 })],
])('transport over %s', (name, makeOptions) => {
  let service: INestMicroservice;
  let client: RpcClient;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const options = makeOptions();
    service = await NestFactory.createMicroservice(TestServiceModule, {
      ...serviceTransport(options, 'test'),
      logger: false,
    });
    service.useGlobalFilters(new RpcErrorFilter());
    await service.listen();
    const moduleRef = await Test.createTestingModule({
      imports: [TransportModule.forRoot(options)],
    }).compile();
    await moduleRef.init();
    client = moduleRef.get(RpcClient);
    close = async () => {
      await moduleRef.close();
      await service.close();
    };
  });

  afterAll(() => close());

  it('answers a request with the JSON form of the reply', async () => {
    await expect(client.request(Echo, { text: 'hi' })).resolves.toEqual({
      text: 'hi',
      at: '1970-01-01T00:00:00.000Z',
    });
  });

  it('carries a coded domain error across with its code and param', async () => {
    await expect(client.request(Fail, { text: 'x' })).rejects.toMatchObject({
      code: 'insufficient_balance',
      message: 'Not enough money',
      param: 'amount',
      status: 402,
    });
  });

  it('hides an unexpected failure behind internal_error', async () => {
    const error = await client.request(Crash, {}).catch((e: DomainError) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error.code).toBe('internal_error');
    expect(error.message).not.toContain('secret');
  });

  it('delivers every chunk of a streamed reply in order', async () => {
    await expect(lastValueFrom(client.stream(Count, { n: 25 }).pipe(toArray()))).resolves.toEqual(
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
  });

  it(`delivers a handed stream's frames in order, ${name === 'nats' ? 'each through' : 'past'} Nest's interceptors`, async () => {
    const before = valuesIntercepted;
    await expect(lastValueFrom(client.stream(HandedCount, { n: 25 }).pipe(toArray()))).resolves.toEqual(
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    expect(valuesIntercepted - before).toBe(name === 'nats' ? 25 : 1);
  });

  it("ends a handed stream that fails after its frames with the error filter's answer", async () => {
    const frames: number[] = [];
    const failure = (text: string) =>
      lastValueFrom(client.stream(HandedBreak, { text }).pipe(tap((frame) => frames.push(frame)))).catch(
        (err: unknown) => err,
      );
    await expect(failure('domain')).resolves.toMatchObject({
      code: 'insufficient_balance',
      message: 'Not enough money',
      param: 'amount',
    });
    expect(frames).toEqual([0, 1, 2]);
    const unexpected = await failure('crash');
    expect(unexpected).toMatchObject({ code: 'internal_error', message: 'Internal error' });
    expect(JSON.stringify(unexpected)).not.toContain('secret');
  });

  it('validates the payload at the handler and names the parameter', async () => {
    await expect(lastValueFrom(client.stream(Count, { n: 0 }))).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'n',
    });
  });

  it.each<[string, unknown, string | null]>([
    ['a missing field', {}, 'text'],
    ['a field of the wrong type', { text: 5 }, 'text'],
    ['an unknown field', { text: 'hi', extra: true }, 'extra'],
    ['a payload that is not an object', 'hi', null],
    ['an array payload', [{ text: 'hi' }], null],
  ])('refuses %s with invalid_request before the handler runs', async (_label, payload, param) => {
    await expect(client.request(Echo, payload as TextRequest)).rejects.toMatchObject({
      code: 'invalid_request',
      status: 400,
      param,
    });
  });

  // A payload no handler would accept shows which side validated: only in one process does the caller's word count.
  it(`${name === 'nats' ? 'validates' : 'takes without validating again'} a message its caller says it built`, async () => {
    const built = { n: 0 };
    const frames = lastValueFrom(client.stream(Count, built, { builtByCaller: true }).pipe(toArray()));
    const echoed = client.request(Echo, { text: 5 } as unknown as TextRequest, { builtByCaller: true });
    if (name === 'nats') {
      await expect(frames).rejects.toMatchObject({ code: 'invalid_request', param: 'n' });
      await expect(echoed).rejects.toMatchObject({ code: 'invalid_request', param: 'text' });
    } else {
      await expect(frames).resolves.toEqual([]);
      await expect(echoed).resolves.toMatchObject({ text: 5 });
    }
  });

  it('turns a missing handler or a silent service into service_unavailable', async () => {
    await expect(client.request(Missing, {}, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
    await expect(client.request(Slow, {}, { timeoutMs: 100 })).rejects.toMatchObject({
      code: 'service_unavailable',
    });
  });

  it('keeps a call with an idle timeout alive on heartbeats, and answers with the reply, not a beat', async () => {
    await expect(client.request(SlowBeating, {}, { idleTimeoutMs: 200 })).resolves.toEqual({ done: true });
  });

  // Over NATS a silent service may be a dead one; in one process it cannot be, and no beats are sent there.
  const silence = name === 'nats' ? 'fails a silent call after its idle timeout' : 'waits out a silent call';
  it(`${silence}, within the call's whole timeout`, async () => {
    const silent = client.request(Slow, {}, { idleTimeoutMs: 200 });
    if (name === 'nats') await expect(silent).rejects.toMatchObject({ code: 'service_unavailable' });
    else await expect(silent).resolves.toEqual({});
  });
});

describe('in-process transport cancellation', () => {
  /** Starts a stream of 10,000 frames on a fresh bus, unsubscribes after 30 ms; what the caller got and how many streams ended. */
  const leaveEarly = async (subject: string) => {
    const bus = new InProcessBus();
    const service = await NestFactory.createMicroservice(TestServiceModule, {
      ...serviceTransport({ kind: 'in-process', bus, rpcTimeoutMs: 1000 }, null),
      logger: false,
    });
    await service.listen();
    const before = streamsFinalized;
    const values: unknown[] = [];
    const subscription = bus.request$(subject, { n: 10_000 }).subscribe((v) => values.push(v));
    await new Promise((resolve) => setTimeout(resolve, 30));
    subscription.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await service.close();
    return { values, finalized: streamsFinalized - before };
  };

  it('stops the handler stream when the caller unsubscribes', async () => {
    const { values, finalized } = await leaveEarly(Count.subject);
    expect(finalized).toBe(1);
    expect(values.length).toBeLessThan(10_000);
  });

  it('stops a handed stream when the caller unsubscribes', async () => {
    const { values, finalized } = await leaveEarly(HandedCount.subject);
    expect(finalized).toBe(1);
    expect(values.length).toBeGreaterThan(0);
    expect(values.length).toBeLessThan(10_000);
    expect(values.every((value) => typeof value === 'number')).toBe(true);
  });
});
