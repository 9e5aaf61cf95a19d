import { type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DomainError, type Principal } from '@gw/contracts';
import { createValidationPipe, HttpErrorFilter, type TransportOptions } from '@gw/platform';
import { silentLogger } from '@gw/testing';
import { type ApiGatewayEnv, ApiGatewayModule } from '../src/api-gateway.module';
import { CredentialResolver } from '../src/security/credential-resolver';

/** Authentication is not under test: each fixed token stands for its principal. */
class FixedCredentials extends CredentialResolver {
  constructor(private readonly principals: Record<string, Principal>) {
    super();
  }

  async resolve(token: string): Promise<Principal> {
    const principal = this.principals[token];
    if (!principal) throw new DomainError('invalid_api_key', 'Invalid API key');
    return principal;
  }
}

export interface GatewayWithCredentials {
  gateway: INestApplication;
  /** The origin and the /api prefix. */
  baseUrl: string;
}

/**
 * The gateway over real HTTP on a free port, set up as main.ts sets it up (the /api prefix, the
 * validation pipe, the error filter), with `principals` by token in place of auth's lookup.
 */
export async function startGatewayWithCredentials(
  env: ApiGatewayEnv,
  transport: TransportOptions,
  principals: Record<string, Principal>,
): Promise<GatewayWithCredentials> {
  const moduleRef = await Test.createTestingModule({
    imports: [ApiGatewayModule.register({ env, transport })],
  })
    .overrideProvider(CredentialResolver)
    .useValue(new FixedCredentials(principals))
    .compile();
  const gateway = moduleRef.createNestApplication({ logger: silentLogger });
  gateway.setGlobalPrefix('api');
  gateway.useGlobalPipes(createValidationPipe());
  gateway.useGlobalFilters(new HttpErrorFilter());
  await gateway.listen(0, '127.0.0.1');
  const { port } = gateway.getHttpServer().address() as { port: number };
  return { gateway, baseUrl: `http://127.0.0.1:${port}/api` };
}
