import { DistributedStack } from './support/distributed-stack';
import { MEDIA_ENV, tenantIsolationSuite } from './support/tenant-isolation-matrix';

// Issue 24 §3 on the distributed mode: every app its own process over NATS, files on S3 (s3rver),
// the same matrix as the embedded mode's (tenant-isolation.e2e-spec.ts).

const ADMIN_TOKEN = 'e2e-tenant-isolation-admin-token-0123456789';

const stack = new DistributedStack({
  database: 'e2e_tenant_isolation',
  adminToken: ADMIN_TOKEN,
  jwtSecret: 'e2e-jwt-secret-tenant-isolation',
  env: { media: MEDIA_ENV },
});

afterAll(() => stack.stop(), 30_000);

tenantIsolationSuite('distributed', async () => {
  await stack.start();
  return { api: stack.api, adminToken: ADMIN_TOKEN };
});
