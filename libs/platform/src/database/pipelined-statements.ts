import type { Client, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';

/** One statement of a pipelined round: its text (marked prepared or not) and its parameters. */
export interface PipelinedStatement {
  text: string;
  values?: unknown[];
}

/**
 * Sends the statements in one socket write and waits for all their answers: one round trip for
 * all of them (decision 197). The client must be in pg's pipeline mode (`pipeline: true`), which
 * sends a query without waiting for the one before; corking the socket around the sends makes them
 * one write, so PostgreSQL is woken once for all of them.
 *
 * Each statement keeps its own answer, as pg's pipeline mode gives it: inside a transaction a
 * failed statement leaves the ones after it failing with 25P02 (the transaction is aborted) and a
 * COMMIT among them answering ROLLBACK, so nothing of the round is kept. The round fails with the
 * first statement's failure, in the order sent; the rows of each statement come back otherwise.
 */
export async function runPipelined(
  client: Client,
  statements: readonly PipelinedStatement[],
): Promise<QueryResult[]> {
  if (!client.pipeline) throw new Error('runPipelined needs a client in pg pipeline mode');
  const socket = client.connection.stream;
  socket.cork();
  let answers: Promise<QueryResult>[];
  try {
    answers = statements.map((statement) =>
      statement.values === undefined
        ? client.query(statement.text)
        : client.query(statement.text, statement.values),
    );
  } finally {
    socket.uncork();
  }
  const settled = await Promise.allSettled(answers);
  const failed = settled.find((answer) => answer.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((answer) => (answer as PromiseFulfilledResult<QueryResult>).value);
}

/**
 * Begins a transaction whose COMMIT does not wait for the WAL flush, for writes a crash may lose
 * (see each caller for why that is safe). Without parameters both go by the simple query protocol,
 * as one statement of a pipelined round.
 */
export const BEGIN_WITHOUT_WAL_FLUSH = 'BEGIN; SET LOCAL synchronous_commit = off';

/**
 * Runs `work` on a connection of `dataSource`'s pipelined pool (`pipeline: true`) that it holds
 * alone until `work` ends. A failure rolls back what `work` left open; after a round that ended with
 * COMMIT PostgreSQL only warns.
 */
export async function withPipelinedClient<T>(
  dataSource: DataSource,
  work: (client: Client) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  try {
    return await work((await runner.connect()) as Client);
  } catch (err) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}

/**
 * One transaction in one round trip: `begin` (BEGIN and what it sets for the transaction), the
 * statements and COMMIT, on a connection of `dataSource`'s pipelined pool. Answers the statements'
 * results; a failing statement fails it and keeps nothing.
 */
export async function runPipelinedTransaction(
  dataSource: DataSource,
  begin: string,
  statements: readonly PipelinedStatement[],
): Promise<QueryResult[]> {
  const results = await withPipelinedClient(dataSource, (client) =>
    runPipelined(client, [{ text: begin }, ...statements, { text: 'COMMIT' }]),
  );
  return results.slice(1, -1);
}
