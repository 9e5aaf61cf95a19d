import { FAULT_ROWS } from './fault-suite';
import { describeFaultTable } from './fault-table';

/** Rows the other fault specs do not cover, small enough for the e2e run of `npm test`. */
const SUBSET = ['blob store down', 'upstream 429 + Retry-After', 'stalled SSE'];

/**
 * The part of the fault table (`npm run test:faults`, docs/reliability.md) that fits the time of
 * `npm test`: the same rows, stack and audit, without the final wait for the storage sweeper.
 */
const rows = FAULT_ROWS.filter((row) => SUBSET.includes(row.name));

// A row renamed in the table would otherwise leave the subset silently smaller.
it('takes every row it names from the fault table', () => {
  expect(rows.map((row) => row.name)).toEqual(SUBSET);
});

describeFaultTable('fault table subset (distributed mode)', rows, { finalSweep: false });
