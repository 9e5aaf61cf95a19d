/** Minimal HTTP helpers for black-box tests: everything goes over real HTTP to the gateway. */
export interface HttpResult<T = unknown> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export async function http<T = any>(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const response = await fetch(url, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (an SSE stream or plain text): keep the text.
  }
  return { status: response.status, body: body as T, text, headers: response.headers };
}

/** The `data:` payloads of an SSE body, in order. */
export function sseData(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length));
}

export interface SeededOrganization {
  organizationId: string;
  userId: string;
  email: string;
  password: string;
  apiKey: string;
}

/** Creates a user, an organization with that user as admin, an API key and a credit, via the operator API. */
export async function seedOrganization(
  apiUrl: string,
  adminToken: string,
  balance: string,
): Promise<SeededOrganization> {
  const suffix = Math.random().toString(36).slice(2, 10);
  const email = `user-${suffix}@e2e.test`;
  const password = `pw-${suffix}-secret`;
  const must = <T>(result: HttpResult<T>, what: string): T => {
    if (result.status >= 300) throw new Error(`${what}: ${result.status} ${result.text}`);
    return result.body;
  };
  const user = must(
    await http<{ id: string }>('POST', `${apiUrl}/admin/users`, {
      token: adminToken,
      body: { email, password, name: 'E2E User' },
    }),
    'create user',
  );
  const org = must(
    await http<{ id: string }>('POST', `${apiUrl}/admin/organizations`, {
      token: adminToken,
      body: { name: `Org ${suffix}` },
    }),
    'create org',
  );
  must(
    await http('PUT', `${apiUrl}/admin/organizations/${org.id}/members/${user.id}`, {
      token: adminToken,
      body: { role: 'admin' },
    }),
    'membership',
  );
  const key = must(
    await http<{ key: string }>('POST', `${apiUrl}/admin/organizations/${org.id}/api-keys`, {
      token: adminToken,
      body: { name: 'e2e', userId: user.id },
    }),
    'api key',
  );
  must(
    await http('POST', `${apiUrl}/admin/organizations/${org.id}/credits`, {
      token: adminToken,
      body: { amount: balance },
    }),
    'credit',
  );
  return { organizationId: org.id, userId: user.id, email, password, apiKey: key.key };
}
