#!/usr/bin/env node
// Applies every service's migrations to DATABASE_URL (each into its own schema) and exits.
import { spawnSync } from 'node:child_process';

for (const service of ['auth', 'billing', 'inference', 'media', 'storage']) {
  const result = spawnSync(process.execPath, [`dist/apps/${service}/main.js`, '--migrate'], {
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  process.stdout.write(`${service}: migrations applied\n`);
}
