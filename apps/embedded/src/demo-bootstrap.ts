import { randomBytes } from 'node:crypto';
import type { DemoAccount } from './demo-state';

export const DEMO_BALANCE_RUB = '1000.00';

/**
 * Creates the demo organization through the gateway's own operator API, so the first start walks
 * the same paths an operator would: user, organization, admin membership, API key, credit.
 */
export async function createDemoAccount(apiBaseUrl: string, adminToken: string): Promise<DemoAccount> {
  const call = async <T>(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> => {
    const response = await fetch(`${apiBaseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as T;
  };
  const password = randomBytes(12).toString('base64url');
  const email = 'demo@gateway.local';
  const user = await call<{ id: string }>('POST', '/admin/users', { email, password, name: 'Demo User' });
  const organization = await call<{ id: string }>('POST', '/admin/organizations', {
    name: 'Demo organization',
  });
  await call('PUT', `/admin/organizations/${organization.id}/members/${user.id}`, { role: 'admin' });
  const key = await call<{ key: string }>('POST', `/admin/organizations/${organization.id}/api-keys`, {
    name: 'demo key',
    userId: user.id,
  });
  await call(
    'POST',
    `/admin/organizations/${organization.id}/credits`,
    { amount: DEMO_BALANCE_RUB, reason: 'demo credit' },
    { 'idempotency-key': `demo-credit-${organization.id}` },
  );
  return { organizationId: organization.id, userId: user.id, email, password, apiKey: key.key };
}
