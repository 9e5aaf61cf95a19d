import { redactSecrets } from '../observability/redaction';

/** Something an app cannot serve without; `check` rejects while it is unreachable. */
export interface DependencyCheck {
  name: string;
  check(): Promise<unknown>;
}

export interface ReadinessReport {
  ready: boolean;
  body: {
    status: 'ok' | 'starting' | 'unavailable' | 'shutting_down';
    /** Each dependency's state: `up`, or `down: <why>`. */
    checks: Record<string, string>;
  };
}

/** Longest a probe waits for one dependency: an unanswered dependency is a down one. */
export const DEPENDENCY_CHECK_TIMEOUT_MS = 2_000;

/**
 * Whether an app can serve now: it has started, every dependency answers, and it is not shutting down. Each
 * probe checks again (nothing is latched), so readiness returns by itself when a dependency does;
 * probes that arrive together share one round of checks.
 */
export class Readiness {
  private checks: readonly DependencyCheck[] | null = null;
  private shuttingDown = false;
  private round: Promise<ReadinessReport> | null = null;

  constructor(private readonly timeoutMs = DEPENDENCY_CHECK_TIMEOUT_MS) {}

  /** The app has started (migrations applied, transport listening): from now on its dependencies decide. */
  serve(checks: readonly DependencyCheck[]): void {
    this.checks = checks;
  }

  /** From now on the app is not ready, whatever its dependencies say: it finishes its work and stops. */
  shutDown(): void {
    this.shuttingDown = true;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  report(): Promise<ReadinessReport> {
    this.round ??= this.checkAll().finally(() => (this.round = null));
    return this.round;
  }

  private async checkAll(): Promise<ReadinessReport> {
    if (!this.checks) return { ready: false, body: { status: 'starting', checks: {} } };
    const results = await Promise.all(
      this.checks.map(async (dependency) => [dependency.name, await this.stateOf(dependency)] as const),
    );
    const checks = Object.fromEntries(results);
    if (this.shuttingDown) return { ready: false, body: { status: 'shutting_down', checks } };
    const ready = results.every(([, state]) => state === 'up');
    return { ready, body: { status: ready ? 'ok' : 'unavailable', checks } };
  }

  private async stateOf(dependency: DependencyCheck): Promise<string> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    try {
      await Promise.race([dependency.check(), late]);
      return 'up';
    } catch (err) {
      return `down: ${redactSecrets(reasonOf(err))}`;
    } finally {
      clearTimeout(timer);
    }
  }
}

function reasonOf(err: unknown): string {
  const error = err as (Error & { code?: string; errors?: Error[] }) | undefined;
  // A refused connection to a host with several addresses arrives as an AggregateError without a message.
  return error?.message || error?.errors?.[0]?.message || error?.code || String(err);
}
