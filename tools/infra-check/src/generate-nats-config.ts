// Writes deploy/nats/auth.conf, the NATS users and their permissions, from nats-users.ts and the
// contracts, and copies deploy/nats's files into k8s/base/nats/, where the ConfigMap generator of
// k8s/base reads them (kustomize reads no file outside its kustomization's directory). Run
// `npm run nats:config` after a contract or a user changes; infra-check fails until then.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderNatsAuthConfig } from './nats-users';

export const NATS_AUTH_CONFIG = 'deploy/nats/auth.conf';
export const NATS_SERVER_CONFIG = 'deploy/nats/nats.conf';
export const NATS_K8S_DIR = 'k8s/base/nats';

/** Each file the NATS of k8s/base is given (a copy), with the one of deploy/nats compose runs with. */
export const NATS_K8S_COPIES: Record<string, string> = {
  [`${NATS_K8S_DIR}/nats.conf`]: NATS_SERVER_CONFIG,
  [`${NATS_K8S_DIR}/auth.conf`]: NATS_AUTH_CONFIG,
};

const ROOT = join(__dirname, '../../..');

if (require.main === module) {
  writeFileSync(join(ROOT, NATS_AUTH_CONFIG), renderNatsAuthConfig());
  mkdirSync(join(ROOT, NATS_K8S_DIR), { recursive: true });
  for (const [copy, source] of Object.entries(NATS_K8S_COPIES))
    copyFileSync(join(ROOT, source), join(ROOT, copy));
}
