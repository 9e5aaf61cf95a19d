import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { BillingContracts, type ReservationLease } from '@gw/contracts';
import { PeriodicTask, RpcClient } from '@gw/platform';

export const RESERVATION_RENEW_INTERVAL = Symbol('RESERVATION_RENEW_INTERVAL');
const BATCH = 500;

/**
 * Keeps the holds of the generations this process is running alive: billing lets a hold lapse one
 * lease after its last renewal, so when this process dies its holds are released in about a lease
 * instead of staying until their TTL. Renewals are batched, one call per interval for all of them.
 */
@Injectable()
export class ReservationLeases implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly running = new Map<string, ReservationLease>();
  private readonly task: PeriodicTask;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(RESERVATION_RENEW_INTERVAL) intervalMs: number,
  ) {
    this.task = new PeriodicTask('Reservation lease renewal', intervalMs, () => this.renew());
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.task.stop();
  }

  /** From the reservation until the generation reports its outcome. */
  hold(lease: ReservationLease): void {
    this.running.set(lease.generationId, lease);
  }

  drop(generationId: string): void {
    this.running.delete(generationId);
  }

  private async renew(): Promise<void> {
    const leases = [...this.running.values()];
    for (let start = 0; start < leases.length; start += BATCH) {
      await this.rpc.request(BillingContracts.renewLeases, { leases: leases.slice(start, start + BATCH) });
    }
  }
}
