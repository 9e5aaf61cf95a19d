import { finalSweepAudit } from './audit';
import { type FaultRow, faultStack, formatDetails, formatTable, type RowResult, runRow } from './fault-suite';

export interface FaultTableOptions {
  /** After the rows, wait for the storage sweeper and check the whole bucket (a minute or two). */
  finalSweep: boolean;
}

/**
 * The fault table as a Jest suite: one distributed stack, one test per row, the table printed at the
 * end. A row passes with no request lost, no generation double-charged, every kind of request
 * succeeding again by itself, and an audit without problems (holds, balance, history, files).
 */
export function describeFaultTable(title: string, rows: FaultRow[], options: FaultTableOptions): void {
  describe(title, () => {
    const { stack, databaseLink, closeDatabaseLink } = faultStack();
    const results: RowResult[] = [];
    const rotation: string[] = [];
    let sweep: { problems: string[]; waitedMs: number } | undefined;

    beforeAll(async () => {
      await stack.start();
      rotation.push(stack.api);
    }, 240_000);

    afterAll(async () => {
      if (results.length > 0) {
        const swept = sweep
          ? `afterwards, over the whole bucket (waited ${(sweep.waitedMs / 1000).toFixed(0)} s for the sweeper): ${sweep.problems.length === 0 ? 'no file record left unfinished, no orphaned object, no transient object' : sweep.problems.join('; ')}\n`
          : '';
        process.stdout.write(`\n${formatTable(results)}\n\n${formatDetails(results)}\n${swept}`);
      }
      await stack.stop();
      await closeDatabaseLink();
    }, 60_000);

    it.each(rows.map((row) => [row.name, row] as const))(
      '%s',
      async (_name, row) => {
        // The replica row needs a second gateway; it is started when that row comes.
        if (row.name.includes('replica') && rotation.length < 2)
          rotation.push(await stack.startGatewayReplica());
        const result = await runRow(stack, databaseLink(), row, rotation);
        results.push(result);
        expect({ lost: result.lost, doubleCharged: result.doubleCharged, problems: result.problems }).toEqual(
          {
            lost: 0,
            doubleCharged: 0,
            problems: [],
          },
        );
      },
      180_000,
    );

    if (options.finalSweep)
      it('afterwards: every deletion a fault left is finished, no object orphaned, no transient object left', async () => {
        sweep = await finalSweepAudit(stack.databaseUrl, stack.objectStore, 150_000);
        expect(sweep.problems).toEqual([]);
      }, 180_000);
  });
}
