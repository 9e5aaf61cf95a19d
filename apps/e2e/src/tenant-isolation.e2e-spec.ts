import { type EmbeddedGateway, startEmbeddedGateway } from './support/embedded-gateway';
import { MEDIA_ENV, tenantIsolationSuite } from './support/tenant-isolation-matrix';

// Issue 24 §3 on the embedded mode; the matrix is shared with the distributed mode
// (tenant-isolation-distributed.e2e-spec.ts).

let gateway: EmbeddedGateway | undefined;

afterAll(() => gateway?.stop());

tenantIsolationSuite('embedded', async () => {
  gateway = await startEmbeddedGateway('isolation', MEDIA_ENV);
  return { api: gateway.api, adminToken: gateway.adminToken };
});
