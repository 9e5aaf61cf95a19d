import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Test, type TestingModule } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  BillingContracts,
  BillingEvents,
  DomainError,
  type ExtendReservationRequest,
  type ExtendReservationResponse,
  type GenerationFinishedEvent,
  type RenewReservationLeasesRequest,
  type ReserveCreditRequest,
  type ReserveCreditResponse,
} from '@gw/contracts';
import {
  DurableEvents,
  InProcessBus,
  startService,
  TransportModule,
  type TransportOptions,
} from '@gw/platform';
import { createTestDatabase, expectEventually, silentLogger, type TestDatabase } from '@gw/testing';
import Decimal from 'decimal.js';
import { type MigrationInterface, type QueryRunner } from 'typeorm';
import { randomUUID } from 'node:crypto';
import { GenerationBilling } from './generation-billing.service';
import type { GenerationContext, GenerationOutcome } from './generation-hold';
import { paidGenerationProviders } from './paid-generation.providers';
import { createPaidGenerationTables, dropPaidGenerationTables } from './paid-generation-migration';
import { paidGenerationTables } from './paid-generation-tables';
import { UpstreamFailure } from './upstream-failure';

/** A balance billing holds against, and what it was asked: the hold is under test here, billing only answers. */
const ledger = {
  available: new Decimal(0),
  /** Billing's extension handler fails as an unreachable service would. */
  unreachable: false,
  held: new Map<string, Decimal>(),
  renewed: new Set<string>(),
};

@Controller()
class BillingStandIn {
  @MessagePattern(BillingContracts.reserve.subject)
  reserve(@Payload() request: ReserveCreditRequest): ReserveCreditResponse {
    const granted = Decimal.min(new Decimal(request.maxAmount), ledger.available);
    if (granted.lessThan(request.minAmount))
      throw new DomainError('insufficient_balance', 'Insufficient balance');
    ledger.available = ledger.available.minus(granted);
    ledger.held.set(request.generationId, granted);
    return { generationId: request.generationId, reservedAmount: granted.toFixed(8) };
  }

  @MessagePattern(BillingContracts.extendReservation.subject)
  extend(@Payload() request: ExtendReservationRequest): ExtendReservationResponse {
    if (ledger.unreachable) throw new Error('billing is down');
    const granted = Decimal.min(new Decimal(request.amount), ledger.available);
    ledger.available = ledger.available.minus(granted);
    const held = (ledger.held.get(request.generationId) ?? new Decimal(0)).plus(granted);
    ledger.held.set(request.generationId, held);
    return {
      generationId: request.generationId,
      reservedAmount: held.toFixed(8),
      extendedAmount: granted.toFixed(8),
    };
  }

  @MessagePattern(BillingContracts.renewLeases.subject)
  renew(@Payload() request: RenewReservationLeasesRequest): { renewed: number } {
    for (const lease of request.leases) ledger.renewed.add(lease.generationId);
    return { renewed: request.leases.length };
  }
}

/** The tables as every service that hosts the pipeline migrates them, here in the test database's public schema. */
class CreatePaidGenerationTables1763900000000 implements MigrationInterface {
  name = 'CreatePaidGenerationTables1763900000000';

  up(q: QueryRunner): Promise<void> {
    return createPaidGenerationTables(q, 'public');
  }

  down(q: QueryRunner): Promise<void> {
    return dropPaidGenerationTables(q, 'public');
  }
}

@Module({ controllers: [BillingStandIn] })
class BillingStandInModule {}

const completed = (cost: string): GenerationOutcome => ({
  status: 'completed',
  provider: 'Mock Alpha',
  finishReason: 'stop',
  usage: null,
  cost: new Decimal(cost),
  error: null,
});

describe('GenerationHold', () => {
  let db: TestDatabase;
  let billingService: INestMicroservice;
  let moduleRef: TestingModule;
  let billing: GenerationBilling;
  /** Every finished event recorded, in order (a generation reported twice would appear twice). */
  const events: GenerationFinishedEvent[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('generation_hold');
    const transport: TransportOptions = { kind: 'in-process', bus: new InProcessBus(), rpcTimeoutMs: 2_000 };
    billingService = await startService({ module: BillingStandInModule }, transport, 'billing', silentLogger);
    const tables = paidGenerationTables('public');
    moduleRef = await Test.createTestingModule({
      imports: [
        TransportModule.forRoot(transport),
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: db.url,
          entities: [tables.RequestAttempt, tables.EventOutbox],
          migrations: [CreatePaidGenerationTables1763900000000],
          migrationsRun: true,
        }),
      ],
      providers: paidGenerationProviders({
        tables,
        outboxRelayIntervalMs: 60_000,
        outboxRetentionMs: 86_400_000,
        reservationRenewIntervalMs: 50,
      }),
    })
      .setLogger(silentLogger)
      .compile();
    await moduleRef.init();
    await moduleRef.get(DurableEvents).subscribe(BillingEvents.generationFinished, 'test', async (event) => {
      events.push(event);
    });
    billing = moduleRef.get(GenerationBilling);
  });

  afterAll(async () => {
    await moduleRef?.close();
    await billingService?.close();
    await db?.drop();
  });

  beforeEach(() => {
    ledger.available = new Decimal(100);
    ledger.unreachable = false;
  });

  const context = (): GenerationContext => ({
    generationId: `gen-${randomUUID()}`,
    principal: { kind: 'user', organizationId: randomUUID(), userId: randomUUID(), role: 'admin' },
    model: 'demo/chat',
    modelDisplayName: 'Demo Chat',
    requestType: 'chat',
    apiType: 'chat_completions',
    responseMode: 'sync',
    startedAt: new Date(),
  });
  const eventsOf = (generationId: string) => events.filter((e) => e.generationId === generationId);

  it('holds what billing reserved and charges what was produced', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('2'), minAmount: new Decimal('1') });
    expect(hold.reserved.toString()).toBe('2');
    hold.markFirstOutput();
    await hold.finish(completed('1.234567'));
    const [event] = await expectEventually(() => {
      expect(eventsOf(hold.generationId)).toHaveLength(1);
      return eventsOf(hold.generationId);
    });
    expect(event).toMatchObject({ status: 'completed', cost: '1.234567', provider: 'Mock Alpha' });
    expect(event.latencyMs).not.toBeNull();
  });

  it('never charges more than it holds', async () => {
    const hold = await billing.open(context(), {
      maxAmount: new Decimal('0.5'),
      minAmount: new Decimal('0.1'),
    });
    expect(hold.capped(new Decimal('3')).toString()).toBe('0.5');
    expect(hold.capped(new Decimal('0.25')).toString()).toBe('0.25');
    await hold.finish(completed('3'));
    const [event] = await expectEventually(() => {
      expect(eventsOf(hold.generationId)).toHaveLength(1);
      return eventsOf(hold.generationId);
    });
    expect(event.cost).toBe('0.5');
  });

  it('passes a refusal through and reports nothing, as nothing was reserved', async () => {
    ledger.available = new Decimal('0.01');
    const refused = context();
    await expect(
      billing.open(refused, { maxAmount: new Decimal('2'), minAmount: new Decimal('1') }),
    ).rejects.toMatchObject({ code: 'insufficient_balance' });
    const settled = await billing.open(context(), {
      maxAmount: new Decimal('0.01'),
      minAmount: new Decimal('0'),
    });
    await settled.finish(completed('0'));
    await expectEventually(() => expect(eventsOf(settled.generationId)).toHaveLength(1));
    expect(eventsOf(refused.generationId)).toHaveLength(0);
  });

  it('reports its outcome once when finished twice, concurrently, or failed afterwards', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    await Promise.all([hold.finish(completed('0.3')), hold.finish(completed('0.9')), hold.fail(null)]);
    expect(hold.ended).toBe(true);
    await hold.finish(completed('0.7'));
    await expectEventually(() => expect(eventsOf(hold.generationId)).toHaveLength(1));
    // Long enough for a second report to have been published, had there been one.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(eventsOf(hold.generationId)).toEqual([
      expect.objectContaining({ status: 'completed', cost: '0.3' }),
    ]);
  });

  it('fails at zero cost against the last provider tried, once, answering the client error', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    hold.attempts.push({
      attempt: 1,
      provider: 'Mock Alpha',
      status: 'failed',
      errorCode: 'status',
      errorMessage: 'bad gateway',
      httpStatus: 502,
      startedAt: new Date(),
      durationMs: 3,
    });
    const failure = new UpstreamFailure('status', 'bad gateway', 502);
    const [first, second] = await Promise.all([hold.fail(failure), hold.fail(failure)]);
    expect(first).toBeInstanceOf(DomainError);
    expect(second.code).toBe(first.code);
    const [event] = await expectEventually(() => {
      expect(eventsOf(hold.generationId)).toHaveLength(1);
      return eventsOf(hold.generationId);
    });
    expect(event).toMatchObject({ status: 'failed', cost: '0', provider: 'Mock Alpha', attemptsCount: 1 });
    expect(event.error?.code).toBe(first.code);
  });

  it('keeps a DomainError it is failed with as the client error', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    const stored = new DomainError('service_unavailable', 'The result could not be stored');
    expect(await hold.fail(stored)).toBe(stored);
    const [event] = await expectEventually(() => {
      expect(eventsOf(hold.generationId)).toHaveLength(1);
      return eventsOf(hold.generationId);
    });
    expect(event).toMatchObject({ status: 'failed', cost: '0', error: { code: 'service_unavailable' } });
  });

  it('grows to a target while billing grants it, and no further than billing grants', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    expect((await hold.growTo(new Decimal('0.5'))).toString()).toBe('1');
    expect((await hold.growTo(new Decimal('3'))).toString()).toBe('3');
    ledger.available = new Decimal('0.25');
    expect((await hold.growTo(new Decimal('5'))).toString()).toBe('3.25');
    expect((await hold.growTo(new Decimal('6'))).toString()).toBe('3.25');
    expect(hold.reserved.toString()).toBe('3.25');
    expect(hold.capped(new Decimal('4')).toString()).toBe('3.25');
    await hold.finish(completed('0'));
  });

  it('asks for a difference once when grown by two callers together', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    const grown = await Promise.all([hold.growTo(new Decimal('2')), hold.growTo(new Decimal('2'))]);
    expect(grown.map(String)).toEqual(['2', '2']);
    expect(ledger.held.get(hold.generationId)?.toString()).toBe('2');
    await hold.finish(completed('0'));
  });

  it('keeps what it holds when billing cannot be asked, without throwing', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    ledger.unreachable = true;
    expect((await hold.growTo(new Decimal('2'))).toString()).toBe('1');
    expect(hold.reserved.toString()).toBe('1');
    await hold.finish(completed('0'));
  });

  it('grows no more once it has ended', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    await hold.finish(completed('1'));
    expect((await hold.growTo(new Decimal('2'))).toString()).toBe('1');
    expect(ledger.held.get(hold.generationId)?.toString()).toBe('1');
  });

  it('counts the first output once', async () => {
    const hold = await billing.open(context(), { maxAmount: new Decimal('1'), minAmount: new Decimal('1') });
    await new Promise((resolve) => setTimeout(resolve, 30));
    hold.markFirstOutput();
    await new Promise((resolve) => setTimeout(resolve, 60));
    hold.markFirstOutput();
    await hold.finish(completed('0'));
    const [event] = await expectEventually(() => {
      expect(eventsOf(hold.generationId)).toHaveLength(1);
      return eventsOf(hold.generationId);
    });
    expect(event.latencyMs).toBeGreaterThanOrEqual(25);
    expect(event.latencyMs).toBeLessThan((event.generationTimeMs ?? 0) - 40);
  });

  it('resumes a hold reserved earlier without reserving again, its lease renewed until it ends', async () => {
    const resumed = context();
    const hold = billing.resume(resumed, new Decimal('4'));
    expect(hold.reserved.toString()).toBe('4');
    expect(ledger.held.has(resumed.generationId)).toBe(false);
    await expectEventually(() => expect(ledger.renewed.has(resumed.generationId)).toBe(true));
    await hold.finish(completed('5'));
    ledger.renewed.clear();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ledger.renewed.has(resumed.generationId)).toBe(false);
    const [event] = await expectEventually(() => {
      expect(eventsOf(resumed.generationId)).toHaveLength(1);
      return eventsOf(resumed.generationId);
    });
    expect(event.cost).toBe('4');
  });
});
