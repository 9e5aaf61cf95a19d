import { FAULT_ROWS } from './fault-suite';
import { describeFaultTable } from './fault-table';

/**
 * Issue 24 §1, `npm run test:faults`: every fault of the table, one after the other, on one
 * distributed stack under mixed traffic (docs/reliability.md). `FAULTS=name,name` runs only the
 * rows whose names contain one of them.
 */
const only = (process.env['FAULTS'] ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');

describeFaultTable(
  'fault table (distributed mode)',
  FAULT_ROWS.filter((row) => only.length === 0 || only.some((name) => row.name.includes(name))),
  { finalSweep: true },
);
