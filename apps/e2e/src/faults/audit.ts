import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import Decimal from 'decimal.js';
import { Client } from 'pg';
import type { TestS3 } from '@gw/testing';
import { http } from '../support/gateway-http';
import type { Outcome } from './traffic';

// The audit's S3 client would warn once per run that its next versions want Node 22.
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

/** What the audit of one row found: the counts of the table, and every problem in words. */
export interface AuditReport {
  /** Generations the client saw complete that history lacks, or lacks as completed. */
  lost: Array<{ id: string; why: string }>;
  /** Generations the client saw complete that were not charged exactly once what it was told. */
  doubleCharged: Array<{ id: string; why: string }>;
  /** Anything else that is wrong afterwards: an open hold, a balance off its ledger, an orphaned file. */
  problems: string[];
  /** How long after the traffic stopped things took to settle, and what was still unsettled at first. */
  settle?: { ms: number; waitedFor: string[] };
}

interface GenerationRow {
  id: string;
  list_status: string;
  client_cost: string;
}

interface LedgerRow {
  generation_id: string | null;
  kind: 'credit' | 'charge' | 'refund';
  amount: string;
}

/** One query on a fresh connection: the stack's database may just have been cut off. */
export async function query<Row extends object>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<Row[]> {
  const db = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await db.connect();
  try {
    return (await db.query<Row>(sql, params)).rows;
  } finally {
    await db.end();
  }
}

export interface AuditTarget {
  databaseUrl: string;
  objectStore: TestS3;
  api: string;
  apiKey: string;
  organizationId: string;
  /** The credit the organization was given. */
  credit: string;
}

/** What settles after the traffic stopped: holds released, generations recorded, pending uploads swept. */
async function unsettled(target: AuditTarget, outcomes: Outcome[]): Promise<string[]> {
  const org = target.organizationId;
  const [state] = await query<{ held: number; pending: number; files: number }>(
    target.databaseUrl,
    `SELECT (SELECT COUNT(*)::int FROM billing.reservations WHERE organization_id = $1 AND status = 'held') AS held,
            (SELECT COUNT(*)::int FROM billing.generations WHERE organization_id = $1 AND list_status = 'pending') AS pending,
            (SELECT COUNT(*)::int FROM storage.files WHERE organization_id = $1
                AND (status = 'pending' OR (status = 'deleting' AND claimed_until <= now()))) AS files`,
    [org],
  );
  const ids = outcomes.filter((o) => o.verdict === 'succeeded' && o.generationId).map((o) => o.generationId);
  const recorded = await query<{ count: number }>(
    target.databaseUrl,
    `SELECT COUNT(*)::int AS count FROM billing.generations WHERE id = ANY($1) AND list_status = 'completed'`,
    [ids],
  );
  const waiting: string[] = [];
  if (state.held > 0) waiting.push(`${state.held} holds open`);
  if (state.pending > 0) waiting.push(`${state.pending} generations pending in history`);
  if (state.files > 0) waiting.push(`${state.files} files pending, or deleting with nobody at it`);
  if (recorded[0].count < ids.length)
    waiting.push(`${ids.length - recorded[0].count} completed generations not in history yet`);
  return waiting;
}

/**
 * Waits (up to `settleMs`) for what follows the traffic to settle, then checks the organization's
 * money and files against what its clients saw:
 * - every generation a client saw complete is in history, completed, once, and its ledger holds
 *   exactly one charge of what the client was told (and no refund);
 * - every generation's ledger (charge less refund) is its history cost;
 * - no hold is open, and the balance is the credit less the settled costs, in the ledger, in
 *   history and on GET /v1/balance alike;
 * - every object under the organization's prefix in S3 has a stored file record and every record its
 *   object; every upload a client saw succeed is stored.
 */
export async function audit(
  target: AuditTarget,
  outcomes: Outcome[],
  settleMs: number,
): Promise<AuditReport> {
  const report: AuditReport = { lost: [], doubleCharged: [], problems: [] };
  const started = Date.now();
  let waitedFor: string[] | null = null;
  for (;;) {
    const waiting = await unsettled(target, outcomes).catch((err: unknown) => [
      `database: ${(err as Error).message}`,
    ]);
    waitedFor ??= waiting;
    if (waiting.length === 0 || Date.now() - started >= settleMs) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const settle = { ms: Date.now() - started, waitedFor: waitedFor ?? [] };
  // What is still unsettled shows below as lost generations, open holds or orphaned files.

  const org = target.organizationId;
  const generations = new Map(
    (
      await query<GenerationRow>(
        target.databaseUrl,
        `SELECT id, list_status, client_cost::text AS client_cost FROM billing.generations WHERE organization_id = $1`,
        [org],
      )
    ).map((row) => [row.id, row]),
  );
  const ledger = await query<LedgerRow>(
    target.databaseUrl,
    `SELECT generation_id, kind, amount::text AS amount FROM billing.ledger_entries WHERE organization_id = $1`,
    [org],
  );
  const entries = new Map<string, LedgerRow[]>();
  for (const entry of ledger)
    if (entry.generation_id)
      entries.set(entry.generation_id, [...(entries.get(entry.generation_id) ?? []), entry]);
  const net = (id: string) =>
    (entries.get(id) ?? []).reduce(
      (sum, e) =>
        e.kind === 'charge' ? sum.plus(e.amount) : e.kind === 'refund' ? sum.minus(e.amount) : sum,
      new Decimal(0),
    );

  const seen = new Set<string>();
  for (const outcome of outcomes) {
    if (outcome.verdict !== 'succeeded' || !outcome.generationId) continue;
    const id = outcome.generationId;
    if (seen.has(id)) {
      report.doubleCharged.push({ id, why: 'two clients were answered the same generation' });
      continue;
    }
    seen.add(id);
    const row = generations.get(id);
    if (!row) {
      report.lost.push({ id, why: `${outcome.kind} completed for its client, not in history` });
      continue;
    }
    if (row.list_status !== 'completed') {
      report.lost.push({
        id,
        why: `${outcome.kind} completed for its client, ${row.list_status} in history`,
      });
      continue;
    }
    const own = entries.get(id) ?? [];
    const charges = own.filter((e) => e.kind === 'charge');
    const refunds = own.filter((e) => e.kind === 'refund');
    const told = outcome.toldCost === undefined ? null : new Decimal(outcome.toldCost);
    if (charges.length > 1 || refunds.length > 0)
      report.doubleCharged.push({ id, why: `${charges.length} charges, ${refunds.length} refunds` });
    else if (told !== null && told.isZero() ? charges.length > 0 : charges.length !== 1)
      report.doubleCharged.push({ id, why: `${charges.length} charges for a cost of ${outcome.toldCost}` });
    else if (told !== null && net(id).minus(told).abs().greaterThan('0.000000005'))
      report.doubleCharged.push({ id, why: `charged ${net(id).toString()}, told ${outcome.toldCost}` });
  }

  for (const [id, row] of generations)
    if (!net(id).equals(row.client_cost))
      report.problems.push(`generation ${id}: ledger ${net(id).toString()} ≠ history ${row.client_cost}`);

  const credits = ledger
    .filter((e) => e.kind === 'credit')
    .reduce((sum, e) => sum.plus(e.amount), new Decimal(0));
  const historyCost = [...generations.values()].reduce(
    (sum, row) => sum.plus(row.client_cost),
    new Decimal(0),
  );
  const [account] = await query<{ balance: string }>(
    target.databaseUrl,
    `SELECT balance::text AS balance FROM billing.accounts WHERE organization_id = $1`,
    [org],
  );
  const expected = credits.minus(historyCost);
  if (!credits.equals(target.credit))
    report.problems.push(`credits ${credits.toString()} ≠ ${target.credit}`);
  if (!new Decimal(account.balance).equals(expected))
    report.problems.push(
      `balance ${account.balance} ≠ credits ${credits.toString()} − settled ${historyCost.toString()}`,
    );
  const shown = await http<{ amount: string }>('GET', `${target.api}/v1/balance`, { token: target.apiKey });
  if (shown.status !== 200 || !new Decimal(shown.body.amount).equals(expected))
    report.problems.push(
      `GET /v1/balance answered ${shown.status} ${shown.text} (expected ${expected.toString()})`,
    );

  const [holds] = await query<{ count: number }>(
    target.databaseUrl,
    `SELECT COUNT(*)::int AS count FROM billing.reservations WHERE organization_id = $1 AND status = 'held'`,
    [org],
  );
  if (holds.count > 0) report.problems.push(`${holds.count} holds still open`);

  report.problems.push(...(await orphans(target, outcomes)));
  return { ...report, settle };
}

function s3Client(store: TestS3): S3Client {
  return new S3Client({
    endpoint: store.env['S3_ENDPOINT'],
    region: store.env['S3_REGION'],
    forcePathStyle: true,
    credentials: {
      accessKeyId: store.env['S3_ACCESS_KEY_ID'],
      secretAccessKey: store.env['S3_SECRET_ACCESS_KEY'],
    },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Writes (`body`) or removes (null) one object of the bucket, as a test that plants a problem does. */
export async function setObject(store: TestS3, key: string, body: string | null): Promise<void> {
  const s3 = s3Client(store);
  try {
    await s3.send(
      body === null
        ? new DeleteObjectCommand({ Bucket: store.bucket, Key: key })
        : new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: body }),
    );
  } finally {
    s3.destroy();
  }
}

/** The bucket's objects under `prefix`. */
async function objectKeys(store: TestS3, prefix: string): Promise<Set<string>> {
  const s3 = s3Client(store);
  const keys = new Set<string>();
  try {
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: store.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) keys.add(object.Key);
      token = page.NextContinuationToken;
    } while (token);
  } finally {
    s3.destroy();
  }
  return keys;
}

interface FileRow {
  id: string;
  object_key: string;
  status: string;
  /** Whether a deletion is in someone's hands now (its claim has not lapsed). */
  claimed: boolean;
}

/**
 * Objects without a record, stored records without their object, uploads a client saw stored that
 * are not. A record being deleted by someone (a claim that has not lapsed: the storage service or
 * its sweeper, which retries a failed removal when the claim lapses, a minute later) is in hand
 * here, and checked gone by `finalSweepAudit` after the last row.
 */
async function orphans(target: AuditTarget, outcomes: Outcome[]): Promise<string[]> {
  const org = target.organizationId;
  const files = await query<FileRow>(
    target.databaseUrl,
    `SELECT id, object_key, status, COALESCE(claimed_until > now(), false) AS claimed
       FROM storage.files WHERE organization_id = $1`,
    [org],
  );
  const keys = await objectKeys(target.objectStore, `${org}/`);
  const problems = fileProblems(files, keys);
  const storedIds = new Set(files.filter((f) => f.status === 'stored').map((f) => f.id));
  const vanished = outcomes.filter((o) => o.fileId && !storedIds.has(o.fileId));
  if (vanished.length > 0) problems.push(`${vanished.length} uploads answered 201 but not stored`);
  return problems;
}

function fileProblems(files: FileRow[], keys: Set<string>, inHandAllowed = true): string[] {
  const problems: string[] = [];
  const recorded = new Set(files.map((f) => f.object_key));
  const orphaned = [...keys].filter((key) => !recorded.has(key));
  if (orphaned.length > 0)
    problems.push(`${orphaned.length} orphaned objects (${orphaned.slice(0, 3).join(', ')})`);
  const missing = files.filter((f) => f.status === 'stored' && !keys.has(f.object_key));
  if (missing.length > 0) problems.push(`${missing.length} stored files without their object`);
  const left = files.filter(
    (f) => f.status !== 'stored' && !(inHandAllowed && f.status === 'deleting' && f.claimed),
  );
  if (left.length > 0)
    problems.push(`${left.length} file records left ${[...new Set(left.map((f) => f.status))].join(' or ')}`);
  return problems;
}

/**
 * After the last row, over the whole bucket: every deletion a fault left in hand has finished (no
 * record but stored ones), no object lacks its stored record, and no transient object (a claim
 * check, staged audio) outlived its call. Waits up to `settleMs` for the sweeper.
 */
export async function finalSweepAudit(
  databaseUrl: string,
  store: TestS3,
  settleMs: number,
): Promise<{ problems: string[]; waitedMs: number }> {
  const started = Date.now();
  for (;;) {
    const files = await query<FileRow>(
      databaseUrl,
      `SELECT id, object_key, status, COALESCE(claimed_until > now(), false) AS claimed FROM storage.files`,
    );
    const keys = await objectKeys(store, '');
    const transient = [...keys].filter((key) => key.startsWith('transient/'));
    for (const key of transient) keys.delete(key);
    const problems = fileProblems(files, keys, false);
    if (transient.length > 0) problems.push(`${transient.length} transient objects left`);
    if (problems.length === 0 || Date.now() - started >= settleMs)
      return { problems, waitedMs: Date.now() - started };
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}
