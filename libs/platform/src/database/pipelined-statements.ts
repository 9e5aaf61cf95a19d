import type { Client, QueryResult } from 'pg';

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
