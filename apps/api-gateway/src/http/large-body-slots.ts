/**
 * Counts the large request bodies in flight on this replica, per client address and per
 * credential, and refuses one more beyond either bound. In memory: each replica bounds its own
 * share, which is what protects its memory; a client spread over replicas gets a bound per replica.
 */
export class LargeBodySlots {
  private readonly byAddress = new Map<string, number>();
  private readonly byCredential = new Map<string, number>();

  constructor(
    private readonly perAddress: number,
    private readonly perCredential: number,
  ) {}

  /** A release function when both bounds allow one more body, else null. Release exactly once. */
  tryAcquire(address: string, credential: string | null): (() => void) | null {
    if ((this.byAddress.get(address) ?? 0) >= this.perAddress) return null;
    if (credential !== null && (this.byCredential.get(credential) ?? 0) >= this.perCredential) return null;
    increment(this.byAddress, address);
    if (credential !== null) increment(this.byCredential, credential);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.byAddress, address);
      if (credential !== null) decrement(this.byCredential, credential);
    };
  }
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left === 0) counts.delete(key);
  else counts.set(key, left);
}
