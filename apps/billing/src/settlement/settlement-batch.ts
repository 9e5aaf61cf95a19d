import { Decimal } from 'decimal.js';
import { type SpendingWindow } from '../limits/spending-windows';
import {
  type CounterKey,
  counterIdOf,
  type CounterValue,
  distinctApiKeys,
  type KeyLimit,
  keyOf,
  type OrganizationApiKey,
  type LimitReads,
} from '../ledger/ledger.repository';

const ZERO = new Decimal(0);

interface CounterChange {
  key: CounterKey;
  /** In the order the settlements made them: each is applied as if alone, floored at zero. */
  deltas: { held: Decimal; spent: Decimal }[];
}

/**
 * The hot rows of one settlement batch, kept in memory under the account locks and written once
 * at the end: each account's balance, and each counter of a key.
 */
export class SettlementBatch {
  private readonly changed = new Map<string, Decimal>();
  private readonly counterChanges = new Map<string, CounterChange>();

  constructor(private readonly balances: Map<string, Decimal>) {}

  balance(organizationId: string): Decimal {
    return this.balances.get(organizationId) ?? ZERO;
  }

  setBalance(organizationId: string, balance: Decimal): void {
    this.balances.set(organizationId, balance);
    this.changed.set(organizationId, balance);
  }

  /** Adds the deltas (negative to free) to the key's counters of the given windows. */
  addToCounters(
    organizationId: string,
    apiKeyId: string,
    windows: SpendingWindow[],
    held: Decimal,
    spent: Decimal,
  ): void {
    for (const window of windows) {
      const key: CounterKey = { organizationId, apiKeyId, period: window.period, windowStart: window.start };
      const id = counterIdOf(key);
      const change = this.counterChanges.get(id) ?? { key, deltas: [] };
      change.deltas.push({ held, spent });
      this.counterChanges.set(id, change);
    }
  }

  /** The balances the batch changed, to be written with one statement. */
  get changedBalances(): ReadonlyMap<string, Decimal> {
    return this.changed;
  }

  /** The API keys whose counters the batch changes. */
  countedKeys(): OrganizationApiKey[] {
    return distinctApiKeys([...this.counterChanges.values()].map((change) => change.key));
  }

  /**
   * The counters of the keys with limits, read once and written once, each delta applied in turn and
   * floored at zero as a statement per settlement would have (a hold made before counters existed
   * must not take a counter below zero when it is freed). A key without limits keeps no counters:
   * setting its first limits rebuilds them (SpendingLimitRepository).
   */
  async counterRows(
    read: Pick<LimitReads, 'counters'>,
    limits: Map<string, KeyLimit[]>,
  ): Promise<CounterValue[]> {
    const changes = [...this.counterChanges.values()].filter((change) =>
      limits.has(keyOf(change.key.organizationId, change.key.apiKeyId)),
    );
    if (changes.length === 0) return [];
    const current = new Map(
      (await read.counters(changes.map((change) => change.key))).map((counter) => [
        counterIdOf(counter),
        counter,
      ]),
    );
    return changes.map((change) => {
      let held = current.get(counterIdOf(change.key))?.held ?? ZERO;
      let spent = current.get(counterIdOf(change.key))?.spent ?? ZERO;
      for (const delta of change.deltas) {
        held = Decimal.max(held.plus(delta.held), 0);
        spent = Decimal.max(spent.plus(delta.spent), 0);
      }
      return { ...change.key, held, spent };
    });
  }
}
