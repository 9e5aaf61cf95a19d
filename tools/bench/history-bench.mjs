#!/usr/bin/env node
// History list benchmark: 1,000,000 generations in a scratch database, the list query timed through
// the real billing service over NATS (the same handler, validation and SQL a gateway request reaches).
//
//   node tools/bench/history-bench.mjs [--rows 1000000] [--runs 40] [--build]
//
// DATABASE_URL names the Postgres server (default postgres://postgres@127.0.0.1:5432/postgres); a
// database bench_history_<random> is created on it and dropped at the end. Needs nats-server on PATH
// and dist/apps/billing/main.js (built with --build, or when it is missing).
import { randomUUID } from 'node:crypto';
import { builtBilling, startBillingStand } from './lib/billing-stand.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const ROWS = option('rows', 1_000_000);
const RUNS = option('runs', 40);
const WARMUP = 3;
const ORGANIZATIONS = 4;
const KEYS_PER_ORGANIZATION = 10;

/** Deterministic version-4-shaped UUIDs, so the timing cases can name the organizations and keys the seed made. */
const uuidOf = (text) => `overlay(overlay(md5(${text}) placing '4' from 13) placing '8' from 17)::uuid`;

async function seed(client) {
  const started = Date.now();
  // One statement: generate_series spreads rows over organizations, keys (10 % without a key), a
  // year of timestamps, request types, statuses and costs in the proportions of a busy gateway.
  await client.query(
    `INSERT INTO "billing"."generations" ("id", "organization_id", "api_key_id", "api_key_name", "api_key_short",
        "user_id", "model", "request_type", "api_type", "response_mode", "status", "list_status", "finish_reason",
        "provider", "usage", "cost", "client_cost", "generation_time_ms", "latency_ms", "queue_time_ms",
        "attempts_count", "is_cancelled", "error", "created_at", "completed_at")
     SELECT 'gen-bench-' || i,
            ${uuidOf(`'bench-org-' || (i % $2)`)},
            CASE WHEN h.k = 0 THEN NULL ELSE ${uuidOf(`'bench-key-' || (i % $2) || '-' || ((i / $2) % $3)`)} END,
            CASE WHEN h.k = 0 THEN NULL ELSE 'key ' || ((i / $2) % $3) END,
            CASE WHEN h.k = 0 THEN NULL ELSE lpad(((i / $2) % $3)::text, 6, '0') END,
            NULL,
            (ARRAY['demo/chat', 'demo/chat-fallback', 'demo/embed-small', 'demo/image', 'demo/whisper'])[1 + h.t % 5],
            t.request_type,
            'chat_completions', 'sync',
            s.status, s.status,
            CASE WHEN s.status = 'completed' THEN 'stop' END,
            'Mock Alpha',
            CASE WHEN s.status = 'completed' THEN jsonb_build_object('prompt_tokens', 40, 'completion_tokens', 60, 'total_tokens', 100) END,
            c.cost, c.cost,
            200 + (i % 1800), 50 + (i % 300), 0, 1, false,
            CASE WHEN s.status = 'failed' THEN '{"code":"BAD_GATEWAY","message":"upstream failed"}'::jsonb END,
            timestamptz '2026-01-01 00:00:00+00' + ((i::bigint * 31536) % 31536000) * interval '1 second',
            timestamptz '2026-01-01 00:00:01+00' + ((i::bigint * 31536) % 31536000) * interval '1 second'
       FROM generate_series(1, $1) AS i,
            -- Independent hashes, so no organization lacks a type or status by accident of arithmetic.
            LATERAL (SELECT abs(hashint4(i)) % 20 AS t, abs(hashint4(i + 1000003)) % 100 AS s,
                            abs(hashint4(i + 2000003)) % 10 AS k) h,
            LATERAL (SELECT CASE WHEN h.t < 12 THEN 'chat' WHEN h.t < 16 THEN 'embedding'
                                 WHEN h.t < 18 THEN 'image' WHEN h.t < 19 THEN 'audio' ELSE 'video' END AS request_type) t,
            LATERAL (SELECT CASE WHEN h.s < 90 THEN 'completed' WHEN h.s < 99 THEN 'failed' ELSE 'pending' END AS status) s,
            LATERAL (SELECT CASE WHEN s.status = 'completed' THEN round((((i::bigint * 7919) % 100000) / 1000000.0)::numeric, 8) ELSE 0 END AS cost) c`,
    [ROWS, ORGANIZATIONS, KEYS_PER_ORGANIZATION],
  );
  await client.query(`INSERT INTO "billing"."models" ("model", "display_name")
    VALUES ('demo/chat', 'Demo Chat'), ('demo/chat-fallback', 'Demo Chat (fallback)'), ('demo/embed-small', 'Demo Embed Small'),
           ('demo/image', 'Demo Image'), ('demo/whisper', 'Demo Whisper') ON CONFLICT DO NOTHING`);
  await client.query(`VACUUM ANALYZE "billing"."generations"`);
  return Date.now() - started;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const billingMain = builtBilling({ build: args.includes('--build') });
  // Starting the service applies billing's migrations to the empty database, indexes included.
  const stand = await startBillingStand({ prefix: 'bench_history', billingMain });
  try {
    const { client, call } = stand;
    console.log(`Seeding ${ROWS.toLocaleString('en')} generations over ${ORGANIZATIONS} organizations…`);
    const seedMs = await seed(client);
    const size = await client.query(
      `SELECT pg_size_pretty(pg_table_size('billing.generations')) AS "table", pg_size_pretty(pg_indexes_size('billing.generations')) AS "indexes",
              (pg_table_size('billing.generations') / GREATEST(count(*), 1))::int AS "bytesPerRow" FROM "billing"."generations"`,
    );
    const org = (await client.query(`SELECT ${uuidOf(`'bench-org-1'`)} AS id`)).rows[0].id;
    const key = (await client.query(`SELECT ${uuidOf(`'bench-key-1-3'`)} AS id`)).rows[0].id;
    const orgRows = (
      await client.query(
        `SELECT count(*)::int AS n FROM "billing"."generations" WHERE "organization_id" = $1`,
        [org],
      )
    ).rows[0].n;
    console.log(
      `Seeded in ${(seedMs / 1000).toFixed(1)} s; table ${size.rows[0].table}, indexes ${size.rows[0].indexes}, ~${size.rows[0].bytesPerRow} bytes per row; timed organization holds ${orgRows.toLocaleString('en')} rows.\n`,
    );

    const user = { kind: 'user', organizationId: org, userId: randomUUID(), role: 'admin' };
    const apiKey = {
      kind: 'api_key',
      organizationId: org,
      apiKeyId: key,
      apiKeyName: 'key 3',
      apiKeyShort: '000003',
      userId: null,
    };
    const list = async (principal, query) => {
      const reply = await call(
        'billing.v1.list-history',
        { principal, query: { page: 1, limit: 20, sortBy: 'createdAt', sortOrder: 'desc', ...query } },
        30_000,
      );
      if (reply.err)
        throw new Error(`list-history failed for ${JSON.stringify(query)}: ${JSON.stringify(reply.err)}`);
      return reply.response;
    };
    const cases = [];
    for (const sortBy of ['createdAt', 'clientCost']) {
      for (const sortOrder of ['desc', 'asc'])
        cases.push([`sort ${sortBy} ${sortOrder}`, user, { sortBy, sortOrder }]);
    }
    cases.push(
      ['page 500 (offset 9 980)', user, { page: 500 }],
      ['limit 100', user, { limit: 100 }],
      ['dateFrom+dateTo (one month)', user, { dateFrom: '2026-06-01T00:00:00Z', dateTo: '2026-06-30' }],
      [
        'dateFrom+dateTo, sort clientCost',
        user,
        { dateFrom: '2026-06-01T00:00:00Z', dateTo: '2026-06-30', sortBy: 'clientCost' },
      ],
      ['requestType=video (5 %)', user, { requestType: 'video' }],
      ['requestType=video, sort clientCost', user, { requestType: 'video', sortBy: 'clientCost' }],
      ['status=pending (1 %)', user, { status: 'pending' }],
      ['status=failed, sort clientCost', user, { status: 'failed', sortBy: 'clientCost', sortOrder: 'asc' }],
      ['apiKeyId (JWT)', user, { apiKeyId: key }],
      ['apiKeyId, sort clientCost', user, { apiKeyId: key, sortBy: 'clientCost' }],
      ['withoutApiKey=true', user, { withoutApiKey: true }],
      ['API key principal', apiKey, {}],
      ['API key, status=failed, requestType=chat', apiKey, { status: 'failed', requestType: 'chat' }],
    );
    const results = [];
    for (const [label, principal, query] of cases) {
      for (let i = 0; i < WARMUP; i++) await list(principal, query);
      const times = [];
      let total = 0;
      for (let i = 0; i < RUNS; i++) {
        const started = process.hrtime.bigint();
        const page = await list(principal, query);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        total = page.meta.total;
      }
      times.sort((a, b) => a - b);
      results.push({
        case: label,
        total,
        'p50 ms': percentile(times, 50).toFixed(1),
        'p99 ms': percentile(times, 99).toFixed(1),
      });
      process.stdout.write('.');
    }
    console.log(
      `\n\nList query through billing over NATS, ${RUNS} runs per case after ${WARMUP} warm-up runs:`,
    );
    console.table(results);
  } finally {
    await stand.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
