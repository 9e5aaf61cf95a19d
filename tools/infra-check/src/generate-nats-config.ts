// Writes deploy/nats/auth.conf, the NATS users and their permissions, from nats-users.ts and the
// contracts. Run `npm run nats:config` after a contract or a user changes; infra-check fails until then.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderNatsAuthConfig } from './nats-users';

export const NATS_AUTH_CONFIG = 'deploy/nats/auth.conf';

if (require.main === module) {
  writeFileSync(join(__dirname, '../../..', NATS_AUTH_CONFIG), renderNatsAuthConfig());
}
