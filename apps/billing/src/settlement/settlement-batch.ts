import { Decimal } from 'decimal.js';
import { type SpendingWindow } from '../limits/spending-windows';
import {
  type CounterKey,
  counterIdOf,
  type CounterValue,
  keyOf,
  type LedgerTransaction,
} from '../ledger/ledger.repository';

const ZERO = new Decimal(0);

interface CounterChange {
  key: CounterKey;
  /** In the order the settlements made them: each is applied as if alone, floored at zero. */
  deltas: { held: Decimal; spent: Decimal }[];
}

/**
 * The hot rows of one settlement batch, kept in memory under the account locks and written once
 * at the end: each account's balance, and each counter of a key. The rows a settlement writes
 * only for itself (history, ledger entry, hold status) are written as it goes.
 */
export class SettlementBatch {
  private readonly changedBalances = new Map<string, Decimal>();
  private readonly counterChanges = new Map<string, CounterChange>();

  constructor(private readonly balances: Map<string, Decimal>) {}

  balance(organizationId: string): Decimal {
    return this.balances.get(organizationId) ?? ZERO;
  }

  setBalance(organizationId: string, balance: Decimal): void {
    this.balances.set(organizationId, balance);
    this.changedBalances.set(organizationId, balance);
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

  /**
   * The balances with one statement; the counters read once and written once, each delta applied in
   * turn and floored at zero as a statement per settlement would have (a hold made before counters
   * existed must not take a counter below zero when it is freed).
   */
  async write(tx: LedgerTransaction): Promise<void> {
    await tx.setBalances(this.changedBalances);
    const limited = await tx.limitsOfKeys(
      uniqueKeys([...this.counterChanges.values()].map((change) => change.key)),
    );
    // A key without limits keeps no counters: setting its first limits rebuilds them (SpendingLimitRepository).
    const changes = [...this.counterChanges.values()].filter((change) =>
      limited.has(keyOf(change.key.organizationId, change.key.apiKeyId)),
    );
    if (changes.length === 0) return;
    const current = new Map(
      (await tx.counters(changes.map((change) => change.key))).map((counter) => [
        counterIdOf(counter),
        counter,
      ]),
    );
    const rows: CounterValue[] = changes.map((change) => {
      let held = current.get(counterIdOf(change.key))?.held ?? ZERO;
      let spent = current.get(counterIdOf(change.key))?.spent ?? ZERO;
      for (const delta of change.deltas) {
        held = Decimal.max(held.plus(delta.held), 0);
        spent = Decimal.max(spent.plus(delta.spent), 0);
      }
      return { ...change.key, held, spent };
    });
    await tx.setCounterRows(rows);
  }
}

function uniqueKeys(keys: CounterKey[]): { organizationId: string; apiKeyId: string }[] {
  const unique = new Map(keys.map((k) => [keyOf(k.organizationId, k.apiKeyId), k]));
  return [...unique.values()].map(({ organizationId, apiKeyId }) => ({ organizationId, apiKeyId }));
}
