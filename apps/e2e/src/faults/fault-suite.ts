import { DistributedStack } from '../support/distributed-stack';
import { DatabaseLink } from './database-link';
import { http, seedOrganization } from '../support/gateway-http';
import { audit, type AuditReport, type AuditTarget } from './audit';
import {
  type Outcome,
  REQUEST_BOUND_MS,
  MEDIA_JOB_BOUND_MS,
  Traffic,
  TRAFFIC_KINDS,
  type TrafficKind,
} from './traffic';

const ADMIN_TOKEN = 'faults-admin-token-0123456789';
export const CREDIT = '1000.00';

/** What the audit reads of one row's organization, through the gateway at `api`. */
export function auditTarget(
  stack: DistributedStack,
  api: string,
  org: { apiKey: string; organizationId: string },
): AuditTarget {
  return {
    databaseUrl: stack.databaseUrl,
    objectStore: stack.objectStore,
    api,
    apiKey: org.apiKey,
    organizationId: org.organizationId,
    credit: CREDIT,
  };
}
/** How long the traffic runs before the fault, and at least after it ended. */
const WARM_MS = 2_500;
const AFTER_MS = 3_000;
/** How long after the fault ended every kind of request must have succeeded again. */
const RECOVERY_LIMIT_MS = 45_000;
/** How long the audit waits for holds, history and uploads to settle after the traffic stopped. */
const SETTLE_MS = 45_000;
/** A chat provider's upstream timeout in the suite (UPSTREAM_TIMEOUT_MS of inference). */
export const UPSTREAM_TIMEOUT_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a row's fault may use: the stack, the traffic's marker switch and the gateways in rotation. */
export interface FaultContext {
  stack: DistributedStack;
  /** The relay between the services and their database. */
  databaseLink: DatabaseLink;
  /** Makes the chats (and, where given, other kinds) carry these markers until `clearMarkers`. */
  setMarkers(markers: Partial<Record<TrafficKind, string>>): void;
  clearMarkers(): void;
  /** Marks a gateway down (killed) from now; `gatewayUp` when it serves again. */
  gatewayDown(url: string): void;
  gatewayUp(url: string): void;
  /** The gateways the load balancer spreads the traffic over. */
  rotation: string[];
  /** Apps started again by the fault, ready when these resolve: awaited before the audit and the next row. */
  restarts: Array<Promise<unknown>>;
}

export interface FaultRow {
  name: string;
  /** How it is injected, for the record. */
  how: string;
  /** Injects the fault and removes it; resolves when it has been removed (the service restarted, the server back…). */
  inject(context: FaultContext): Promise<void>;
  /** Checks of its own after the audit (e.g. that a provider's 429 was not hammered): problems, and what it saw. */
  check?(
    outcomes: Outcome[],
    context: FaultContext,
    before: unknown,
  ): Promise<{ problems: string[]; note: string }>;
  /** Taken before the fault, handed to `check`. */
  before?(context: FaultContext): Promise<unknown>;
}

export interface RowResult {
  fault: string;
  requests: number;
  succeeded: number;
  failedCleanly: number;
  lost: number;
  doubleCharged: number;
  /** From the fault's removal until every kind of request had succeeded again; null if one never did. */
  recoveryMs: number | null;
  /** The longest any request waited, and its kind. */
  maxWaitMs: number;
  problems: string[];
  /** The lost and double-charged requests and generations, in words, for the report. */
  details: string[];
  /** Counts of each outcome detail, for the report. */
  breakdown: Record<string, number>;
  /** What the row's own check saw, for the report. */
  note: string;
}

/** The stack the suite runs on: every app as its own process, short leases so that dead renewers show in seconds. */
export function faultStack(): {
  stack: DistributedStack;
  databaseLink: () => DatabaseLink;
  closeDatabaseLink: () => Promise<void>;
} {
  let link: DatabaseLink | undefined;
  const stack = new DistributedStack({
    relayDatabase: async (url) => {
      const opened = await DatabaseLink.open(url);
      link = opened.link;
      return opened.url;
    },
    database: 'faults',
    adminToken: ADMIN_TOKEN,
    jwtSecret: 'faults-jwt-secret-0123456789',
    env: {
      'api-gateway': { RATE_LIMIT_RPM_PER_KEY: '0', RATE_LIMIT_CONCURRENT_PER_KEY: '64' },
      billing: { RESERVATION_LEASE_MS: '3000' },
      inference: {
        RESERVATION_RENEW_INTERVAL_MS: '1000',
        UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
        OUTBOX_RELAY_INTERVAL_MS: '1000',
      },
      media: {
        RESERVATION_RENEW_INTERVAL_MS: '1000',
        OUTBOX_RELAY_INTERVAL_MS: '1000',
        MEDIA_JOB_LEASE_MS: '2000',
        MEDIA_IDLE_POLL_MS: '300',
        MEDIA_POLL_FIRST_MS: '200',
        MEDIA_POLL_MAX_MS: '500',
        MEDIA_SETTLE_GRACE_MS: '3000',
      },
      storage: { STORAGE_PENDING_UPLOAD_TTL_MS: '5000', STORAGE_SWEEP_INTERVAL_MS: '1000' },
    },
  });
  return {
    stack,
    databaseLink: () => {
      if (!link) throw new Error('The stack has not started');
      return link;
    },
    closeDatabaseLink: async () => link?.close(),
  };
}

export { ADMIN_TOKEN };

/**
 * One row: a fresh organization, the mixed traffic on its key, the fault in the middle of it, the
 * traffic until every kind succeeds again, then the audit of what the clients saw against what
 * billing, history and storage hold.
 */
export async function runRow(
  stack: DistributedStack,
  databaseLink: DatabaseLink,
  row: FaultRow,
  rotation: string[],
): Promise<RowResult> {
  const org = await seedOrganization(rotation[0], ADMIN_TOKEN, CREDIT);
  let markers: Partial<Record<TrafficKind, string>> = {};
  const downtime = new Map<string, Array<{ from: number; to: number }>>();
  const context: FaultContext = {
    stack,
    databaseLink,
    rotation,
    restarts: [],
    setMarkers: (next) => (markers = next),
    clearMarkers: () => (markers = {}),
    gatewayDown: (url) =>
      downtime.set(url, [...(downtime.get(url) ?? []), { from: Date.now(), to: Infinity }]),
    gatewayUp: (url) => {
      const last = downtime.get(url)?.at(-1);
      if (last) last.to = Date.now();
    },
  };
  const traffic = new Traffic({
    apiKey: org.apiKey,
    gateways: () => context.rotation,
    marker: (kind) => markers[kind] ?? '',
    gatewayWasDown: (url, from, to) =>
      (downtime.get(url) ?? []).some((down) => down.from <= to && down.to >= from),
  });

  const before = await row.before?.(context);
  traffic.start();
  await sleep(WARM_MS);
  // The fault lands on requests in flight: a chat and a stream at least, and three requests in all.
  const warmUntil = Date.now() + 2_000;
  const busy = () => {
    const kinds = traffic.inFlight();
    return kinds.length >= 3 && kinds.includes('chat') && kinds.includes('stream');
  };
  while (!busy() && Date.now() < warmUntil) await sleep(10);
  const injectedAt = Date.now();
  await row.inject(context);
  const removedAt = Date.now();
  // Traffic goes on until every kind has succeeded again (or the limit passed), and a little longer.
  let recoveryMs: number | null = null;
  while (Date.now() - removedAt < RECOVERY_LIMIT_MS) {
    recoveryMs = recovery(traffic.outcomes, removedAt);
    if (recoveryMs !== null && Date.now() - removedAt >= AFTER_MS) break;
    await sleep(250);
  }
  await traffic.stop();
  recoveryMs = recovery(traffic.outcomes, removedAt);
  await Promise.all(context.restarts);

  const outcomes = traffic.outcomes;
  const report: AuditReport = await audit(auditTarget(stack, rotation[0], org), outcomes, SETTLE_MS);
  const checked = (await row.check?.(outcomes, context, before)) ?? { problems: [], note: '' };
  const own = [...checked.problems];
  // Reconnected by themselves: each gateway's readiness (NATS and the blob store) answers 200 again.
  for (const gateway of rotation) {
    const ready = await http('GET', `${gateway}/health/ready`).catch((err: Error) => ({
      status: 0,
      text: err.message,
    }));
    if (ready.status !== 200) own.push(`${gateway}/health/ready answered ${ready.status} ${ready.text}`);
  }
  const overBound = outcomes.filter(
    (o) => o.endedAt - o.startedAt > (o.kind === 'media' ? MEDIA_JOB_BOUND_MS : REQUEST_BOUND_MS) + 1_000,
  );
  const lostRequests = outcomes.filter((o) => o.verdict === 'lost');
  const caught = outcomes.filter((o) => o.startedAt < injectedAt && o.endedAt > injectedAt);
  const caughtBy = (verdict: string) => caught.filter((o) => o.verdict === verdict).length;
  const inFlight = `${caught.length} requests in flight when the fault began (${caughtBy('succeeded')} succeeded, ${caughtBy('failed')} failed cleanly, ${caughtBy('lost')} lost)`;
  // Every request of the traffic is valid: a fault may refuse it, but never blame the client for it.
  const blamed = outcomes.filter(
    (o) => o.status !== undefined && o.status >= 400 && o.status < 500 && o.status !== 429,
  );
  const breakdown: Record<string, number> = {};
  for (const o of outcomes) {
    const key = `${o.kind} ${o.verdict}: ${o.detail}`;
    breakdown[key] = (breakdown[key] ?? 0) + 1;
  }
  return {
    fault: row.name,
    requests: outcomes.length,
    succeeded: outcomes.filter((o) => o.verdict === 'succeeded').length,
    failedCleanly: outcomes.filter((o) => o.verdict === 'failed').length,
    lost: lostRequests.length + report.lost.length,
    doubleCharged: report.doubleCharged.length,
    recoveryMs,
    maxWaitMs: Math.max(0, ...outcomes.map((o) => o.endedAt - o.startedAt)),
    problems: [
      ...report.problems,
      ...own,
      ...(recoveryMs === null ? [`not every kind succeeded again within ${RECOVERY_LIMIT_MS / 1000} s`] : []),
      ...overBound.map((o) => `${o.kind} waited ${o.endedAt - o.startedAt} ms, past its bound`),
      ...blamed.map((o) => `a valid ${o.kind} request answered ${o.detail}`),
    ],
    details: [
      ...lostRequests.map(
        (o) => `lost ${o.kind} via ${o.gateway} at +${o.startedAt - removedAt} ms: ${o.detail}`,
      ),
      ...report.lost.map((l) => `lost generation ${l.id}: ${l.why}`),
      ...report.doubleCharged.map((d) => `double-charged ${d.id}: ${d.why}`),
    ],
    breakdown,
    note: [inFlight, settled(report), checked.note].filter((text) => text !== '').join('; '),
  };
}

/** What the audit waited for before it could count, in words. */
function settled(report: AuditReport): string {
  const settle = report.settle;
  if (!settle || settle.waitedFor.length === 0) return 'settled at once';
  return `settled ${(settle.ms / 1000).toFixed(1)} s after the traffic stopped (${settle.waitedFor.join(', ')})`;
}

/** From the fault's removal until each kind has had a request that started after it and succeeded; null until then. */
function recovery(outcomes: Outcome[], removedAt: number): number | null {
  let latest = 0;
  for (const kind of TRAFFIC_KINDS) {
    const first = outcomes
      .filter((o) => o.kind === kind && o.startedAt >= removedAt && o.verdict === 'succeeded')
      .reduce((min, o) => Math.min(min, o.endedAt), Infinity);
    if (first === Infinity) return null;
    latest = Math.max(latest, first - removedAt);
  }
  return latest;
}

/** Kills an app with SIGKILL, leaves it down for `downMs`, and starts it again. */
async function killAndRestart(context: FaultContext, name: string, downMs: number): Promise<void> {
  await context.stack.apps.get(name)?.stop('SIGKILL');
  await sleep(downMs);
  // The fault ends when the process is started again: its start-up counts in the recovery.
  context.restarts.push(context.stack.startService(name));
}

/** Every route's count of answers with `status` in the mock's call log. */
async function mockCalls(stack: DistributedStack, status: string): Promise<number> {
  const calls = (await http<Record<string, Record<string, number>>>('GET', `${stack.mockUpstreamUrl}/calls`))
    .body;
  return Object.values(calls).reduce((sum, byStatus) => sum + (byStatus[status] ?? 0), 0);
}

/** A provider fault: the chats (and the kinds named) carry the mock's marker for `windowMs`. */
function providerFault(
  name: string,
  how: string,
  markers: Partial<Record<TrafficKind, string>>,
  windowMs = 4_000,
): Pick<FaultRow, 'name' | 'how' | 'inject'> {
  return {
    name,
    how,
    inject: async (context) => {
      context.setMarkers(markers);
      await sleep(windowMs);
      context.clearMarkers();
    },
  };
}

/** The rows of the table, in the order they run. */
export const FAULT_ROWS: FaultRow[] = [
  // First: the deletions it leaves to the storage sweeper finish a minute later, checked after the last row.
  {
    name: 'blob store down',
    how: 'the S3 server stopped (connections cut), down 6 s, started again on the same port and data',
    inject: (context) => context.stack.restartObjectStore(6_000),
  },
  providerFault('upstream timeout', 'mock answers after 6 s; UPSTREAM_TIMEOUT_MS is 3 s', {
    chat: '[[delay:6000]]',
    stream: '[[delay:6000]]',
  }),
  providerFault(
    'connection reset',
    'mock destroys the socket (plain at once, stream after the first chunk)',
    {
      chat: '[[drop]]',
      stream: '[[drop]]',
    },
  ),
  providerFault('upstream 5xx', 'mock answers 500 (chats and embeddings)', {
    chat: '[[fail:500]]',
    stream: '[[fail:500]]',
    embedding: '[[fail:500]]',
  }),
  {
    ...providerFault(
      'upstream 429 + Retry-After',
      'mock answers 429 with Retry-After: 2 (chats and embeddings)',
      {
        chat: '[[fail:429]] [[retry-after:2]]',
        stream: '[[fail:429]] [[retry-after:2]]',
        embedding: '[[fail:429]] [[retry-after:2]]',
      },
    ),
    before: (context) => mockCalls(context.stack, '429'),
    // Honoured: every 429 the client got says when to come back; never hammered: the gateway called
    // each provider of a marked request at most once (two chat providers, one embedding provider).
    check: async (outcomes, context, before) => {
      const problems: string[] = [];
      const refused = outcomes.filter((o) => o.status === 429);
      const without = refused.filter((o) => !(o.retryAfter && o.retryAfter >= 1));
      if (without.length > 0) problems.push(`${without.length} client 429s without a Retry-After`);
      const marked = outcomes.filter((o) => o.marked);
      const allowed = marked.reduce((sum, o) => sum + (o.kind === 'embedding' ? 1 : 2), 0);
      const upstream = (await mockCalls(context.stack, '429')) - (before as number);
      if (upstream > allowed)
        problems.push(
          `the providers answered ${upstream} 429s to ${marked.length} marked requests (at most ${allowed})`,
        );
      if (refused.length === 0) problems.push('no client heard 429');
      const note = `the providers answered ${upstream} 429s to ${marked.length} marked requests (at most ${allowed}); ${refused.length - without.length} of ${refused.length} client 429s carried Retry-After, which their clients waited`;
      return { problems, note };
    },
  },
  providerFault('malformed JSON', 'mock answers 200 with a body / first SSE line that is not JSON', {
    chat: '[[malformed:first]]',
    stream: '[[malformed:first]]',
  }),
  providerFault(
    'malformed SSE mid-stream',
    'mock sends a data: line that is not JSON after the first chunk',
    {
      stream: '[[malformed:mid]]',
    },
  ),
  providerFault(
    'stalled SSE',
    'mock goes silent with the connection open (stream after the first chunk, plain after its headers)',
    {
      chat: '[[stall:first]]',
      stream: '[[stall:mid]]',
    },
  ),
  {
    name: 'NATS restarted',
    how: 'the private nats-server stopped, down 4 s, started on the same port and JetStream store',
    inject: (context) => context.stack.restartNats(4_000),
  },
  {
    name: 'PostgreSQL restarted',
    how: "the services' sessions terminated (57P01), their connections refused for 5 s, then accepted again",
    inject: (context) => context.databaseLink.restart(5_000),
  },
  ...(['billing', 'inference', 'media', 'storage', 'auth'] as const).map((name): FaultRow => ({
    name: `${name} SIGKILL`,
    how: `SIGKILL, down 1 s, started again`,
    inject: (context) => killAndRestart(context, name, 1_000),
  })),
  {
    name: 'gateway SIGKILL',
    how: 'the only gateway SIGKILLed, down 1 s, started again on the same port',
    inject: async (context) => {
      const url = context.rotation[0];
      context.gatewayDown(url);
      await context.stack.apps.get('api-gateway')?.stop('SIGKILL');
      await sleep(1_000);
      // Down (connections refused) until it listens again.
      context.restarts.push(context.stack.restartGateway('api-gateway').then(() => context.gatewayUp(url)));
    },
  },
  {
    name: 'gateway replica SIGKILL',
    how: 'one of two gateways SIGKILLed; the balancer sends the rest to the other',
    inject: async (context) => {
      const replica = context.rotation[1];
      context.gatewayDown(replica);
      await context.stack.apps.get(replicaLabel(context.stack, replica))?.stop('SIGKILL');
      context.rotation.splice(1, 1);
    },
  },
];

/** The label of the stack's gateway serving `url`. */
function replicaLabel(stack: DistributedStack, url: string): string {
  const label = stack.gatewayLabel(url);
  if (!label) throw new Error(`No gateway serves ${url}`);
  return label;
}

/** The table as the suite prints it and docs/reliability.md quotes it. */
export function formatTable(results: RowResult[]): string {
  const header = [
    'fault',
    'requests',
    'succeeded',
    'failed cleanly',
    'lost',
    'double-charged',
    'recovery',
    'max wait',
    'audit',
  ];
  const rows = results.map((r) => [
    r.fault,
    String(r.requests),
    String(r.succeeded),
    String(r.failedCleanly),
    String(r.lost),
    String(r.doubleCharged),
    r.recoveryMs === null ? 'never' : `${(r.recoveryMs / 1000).toFixed(1)} s`,
    `${(r.maxWaitMs / 1000).toFixed(1)} s`,
    r.problems.length === 0 ? 'ok' : `${r.problems.length} problems`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, i) => (i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 || i === widths.length - 1 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/**
 * Under the table, row by row: how the requests that did not succeed ended (`chat failed: 503
 * service_unavailable ×3`), then any problem and every lost or double-charged request in words.
 */
export function formatDetails(results: RowResult[]): string {
  const lines: string[] = [];
  for (const r of results) {
    const endings = Object.entries(r.breakdown)
      .filter(([key]) => !key.includes(' succeeded: '))
      .map(([key, count]) => `${key} ×${count}`);
    lines.push(`${r.fault}: ${endings.length === 0 ? 'every request succeeded' : endings.join('; ')}`);
    if (r.note) lines.push(`  - ${r.note}`);
    for (const p of r.problems) lines.push(`  - ${p}`);
    for (const d of r.details.slice(0, 10)) lines.push(`  - ${d}`);
    if (r.details.length > 10) lines.push(`  - … and ${r.details.length - 10} more`);
  }
  return lines.join('\n');
}
