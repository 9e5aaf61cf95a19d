#!/usr/bin/env node
// Money-path benchmark: what billing asks of Postgres per chat (commits, row writes) and how many
// reservations per second one organization gets, through the real billing service over NATS.
//
//   node tools/bench/money-path.mjs [--chats 400] [--chat-concurrency 16] [--reservations 2000]
//                                   [--reserve-concurrency 200] [--build] [--billing-main <path>]
//
// A chat is what the gateway asks of billing for one non-streamed chat: a reserve RPC, then the
// generation-finished event on JetStream that settles it (a key without spending limits, as most
// keys are). DATABASE_URL names the Postgres server (default postgres://postgres@127.0.0.1:5432/postgres);
// a database bench_money_<random> is created and dropped. Needs nats-server on PATH and
// dist/apps/billing/main.js (built with --build, or when it is missing); --billing-main measures
// another build, such as one of an earlier commit, for a before/after comparison.
import { jetstream } from '@nats-io/jetstream';
import { randomUUID } from 'node:crypto';
import { builtBilling, startBillingStand } from './lib/billing-stand.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const CHATS = option('chats', 400);
const CHAT_CONCURRENCY = option('chat-concurrency', 16);
const RESERVATIONS = option('reservations', 2000);
const RESERVE_CONCURRENCY = option('reserve-concurrency', 200);

/** Runs `task(i)` for i in [0, count) with at most `concurrency` at a time. */
async function pool(count, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * Commits and row writes of the bench database. Postgres (15+) publishes the counters of an idle backend up to
 * ten seconds after its last transaction, so the reader waits that long for billing's connections.
 */
async function databaseWork(client) {
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query(
    `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::bigint AS commits,
            (SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_user_tables WHERE schemaname = 'billing')::bigint AS writes`,
  );
  return { commits: Number(rows[0].commits), writes: Number(rows[0].writes) };
}

async function main() {
  const other = args.indexOf('--billing-main');
  const billingMain = other >= 0 ? args[other + 1] : builtBilling({ build: args.includes('--build') });
  const stand = await startBillingStand({ prefix: 'bench_money', billingMain });
  try {
    const { client, nc, call } = stand;
    const js = jetstream(nc);

    const credit = async (organizationId, amount) => {
      const reply = await call('billing.v1.add-credits', {
        organizationId,
        amount,
        reason: 'bench',
        idempotencyKey: null,
      });
      if (reply.err) throw new Error(`credit failed: ${JSON.stringify(reply.err)}`);
    };
    const reserve = (organizationId, apiKeyId, maxAmount, minAmount) =>
      call('billing.v1.reserve', {
        generationId: `gen_${randomUUID()}`,
        organizationId,
        apiKeyId,
        maxAmount,
        minAmount,
        model: 'demo/chat',
        requestType: 'chat',
        apiType: 'chat_completions',
        responseMode: 'sync',
      }).then((reply) => ({ ...reply, sentFor: organizationId }));
    const finished = (organizationId, apiKeyId, generationId, cost) => {
      const now = new Date().toISOString();
      return {
        generationId,
        organizationId,
        apiKeyId,
        apiKeyName: 'bench key',
        apiKeyShort: 'bench1',
        userId: null,
        model: 'demo/chat',
        modelDisplayName: 'Demo Chat',
        requestType: 'chat',
        apiType: 'chat_completions',
        responseMode: 'sync',
        status: 'completed',
        finishReason: 'stop',
        provider: 'Mock Alpha',
        usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
        cost,
        generationTimeMs: 800,
        latencyMs: 120,
        queueTimeMs: 0,
        attemptsCount: 1,
        isCancelled: false,
        error: null,
        createdAt: now,
        completedAt: now,
      };
    };

    // Warm-up: connections, prepared code paths and the model-name cache.
    const warmOrg = randomUUID();
    await credit(warmOrg, '1000');
    await pool(20, 4, async () => {
      const generationId = `gen_${randomUUID()}`;
      await call('billing.v1.reserve', {
        generationId,
        organizationId: warmOrg,
        apiKeyId: null,
        maxAmount: '1',
        minAmount: '0',
      });
      await js.publish(
        'events.generation.finished',
        JSON.stringify(finished(warmOrg, null, generationId, '0.1')),
        {
          msgID: generationId,
        },
      );
    });

    // Chats: reserve, then settle through JetStream, for a key without spending limits.
    const org = randomUUID();
    const key = randomUUID();
    await credit(org, '100000');
    const before = await databaseWork(client);
    const chatsStarted = performance.now();
    await pool(CHATS, CHAT_CONCURRENCY, async () => {
      const reply = await reserve(org, key, '1', '0.01');
      if (reply.err) throw new Error(`reserve failed: ${JSON.stringify(reply.err)}`);
      const generationId = reply.response.generationId;
      await js.publish(
        'events.generation.finished',
        JSON.stringify(finished(org, key, generationId, '0.5')),
        {
          msgID: generationId,
        },
      );
    });
    let polls = 0;
    for (;;) {
      polls += 1;
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM billing.generations WHERE organization_id = $1`,
        [org],
      );
      if (rows[0].n >= CHATS) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const chatsSeconds = (performance.now() - chatsStarted) / 1000;
    const after = await databaseWork(client);
    // The bench's own reads are transactions too: the polls above and the snapshot query.
    const ownCommits = polls + 2;
    console.log(
      `\n${CHATS} chats (reserve + settle), ${CHAT_CONCURRENCY} at a time, in ${chatsSeconds.toFixed(2)} s:`,
    );
    console.table({
      'per chat': {
        commits: ((after.commits - before.commits - ownCommits) / CHATS).toFixed(2),
        'row writes': ((after.writes - before.writes) / CHATS).toFixed(2),
      },
    });

    // Reservations of one organization: balance for exactly half of them, so refusals count too.
    const busy = randomUUID();
    await credit(busy, String(RESERVATIONS / 2));
    const started = performance.now();
    let held = 0;
    let refused = 0;
    await pool(RESERVATIONS, RESERVE_CONCURRENCY, async () => {
      const reply = await reserve(busy, null, '1', '1');
      if (reply.err?.code === 'insufficient_balance') refused += 1;
      else if (reply.err) throw new Error(`reserve failed: ${JSON.stringify(reply.err)}`);
      else held += 1;
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `\n${RESERVATIONS} reservations of one organization, ${RESERVE_CONCURRENCY} at a time: ${(RESERVATIONS / seconds).toFixed(0)} reservations/s (${held} held, ${refused} refused for balance, ${seconds.toFixed(2)} s)`,
    );
  } finally {
    await stand.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
