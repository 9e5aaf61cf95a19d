import { type INestMicroservice } from '@nestjs/common';
import { type DependencyCheck } from '@gw/platform';
import { servicePostgresCheck } from '@gw/platform/database';

/**
 * What the embedded mode's one readiness (the gateway's `/api/health/ready`) answers for beyond the
 * gateway's blob store: the PostgreSQL every hosted service keeps its schema in, asked through one
 * service's own pool (they share the server, so one answer is every service's).
 */
export function embeddedReadinessChecks(service: INestMicroservice): DependencyCheck[] {
  return [servicePostgresCheck(service)];
}
