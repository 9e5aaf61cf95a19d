import { randomUUID } from 'node:crypto';
import { seedOrganization } from '../support/gateway-http';
import { audit, finalSweepAudit, query, setObject } from './audit';
import {
  ADMIN_TOKEN,
  auditTarget,
  CREDIT,
  type FaultRow,
  faultStack,
  formatDetails,
  formatTable,
  type RowResult,
  runRow,
} from './fault-suite';
import { Traffic } from './traffic';

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

    it('the audit is not vacuous: it finds a planted double charge, lost generation, open hold and orphaned object', async () => {
      const org = await seedOrganization(rotation[0], ADMIN_TOKEN, CREDIT);
      const traffic = new Traffic({
        apiKey: org.apiKey,
        gateways: () => rotation,
        marker: () => '',
        gatewayWasDown: () => false,
      });
      traffic.start();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await traffic.stop();
      const target = auditTarget(stack, rotation[0], org);
      const clean = await audit(target, traffic.outcomes, 30_000);
      expect({ lost: clean.lost, doubleCharged: clean.doubleCharged, problems: clean.problems }).toEqual({
        lost: [],
        doubleCharged: [],
        problems: [],
      });

      const [charged, dropped] = traffic.outcomes.filter(
        (o) => o.kind === 'chat' && o.verdict === 'succeeded',
      );
      const orphan = `${org.organizationId}/${randomUUID()}`;
      const hold = `planted-${randomUUID()}`;
      await query(
        stack.databaseUrl,
        `UPDATE billing.ledger_entries SET amount = amount * 2 WHERE generation_id = $1 AND kind = 'charge'`,
        [charged.generationId],
      );
      await query(stack.databaseUrl, `DELETE FROM billing.generations WHERE id = $1`, [dropped.generationId]);
      await query(
        stack.databaseUrl,
        `INSERT INTO billing.reservations (generation_id, organization_id, amount, status, expires_at)
         VALUES ($1, $2, 1, 'held', now() + interval '1 hour')`,
        [hold, org.organizationId],
      );
      await setObject(stack.objectStore, orphan, 'left behind');
      try {
        const planted = await audit(target, traffic.outcomes, 0);
        expect(planted.doubleCharged.map((d) => d.id)).toEqual([charged.generationId]);
        expect(planted.lost.map((l) => l.id)).toEqual([dropped.generationId]);
        expect(planted.problems).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/^balance /),
            '1 holds still open',
            expect.stringMatching(/^1 orphaned objects/),
          ]),
        );
      } finally {
        await setObject(stack.objectStore, orphan, null);
        await query(
          stack.databaseUrl,
          `UPDATE billing.reservations SET status = 'released' WHERE generation_id = $1`,
          [hold],
        );
      }
    }, 120_000);
  });
}
