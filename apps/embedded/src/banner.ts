import type { ServedModels } from './catalogue-probe';
import type { DemoState } from './demo-state';

/**
 * What `npm start` prints: credentials and curl lines that work as printed. `models` are served by
 * the loaded catalogue; a kind it does not serve leaves its lines out.
 */
export function renderBanner(baseUrl: string, state: DemoState, models: ServedModels): string {
  const account = state.account;
  if (!account) return `Gateway at ${baseUrl}\nAdmin token: ${state.adminToken}\n`;
  const auth = `-H "Authorization: Bearer ${account.apiKey}"`;
  const json = `-H "Content-Type: application/json"`;
  const chat = (stream: boolean) =>
    `'{"model":${JSON.stringify(models.chat)},"messages":[{"role":"user","content":"Hello, gateway!"}]${stream ? ',"stream":true' : ''}}'`;
  return [
    '',
    '  Model gateway (embedded mode) is ready.',
    '',
    `  API base URL   ${baseUrl}/v1`,
    `  Swagger UI     ${baseUrl}/docs`,
    `  Demo API key   ${account.apiKey}`,
    `  Admin token    ${state.adminToken}`,
    `  Console login  ${account.email} / ${account.password}  (POST ${baseUrl}/auth/login)`,
    '',
    '  Try it:',
    `  curl -s ${baseUrl}/v1/models`,
    ...(models.chat
      ? [
          `  curl -s ${baseUrl}/v1/chat/completions ${auth} ${json} -d ${chat(false)}`,
          `  curl -sN ${baseUrl}/v1/chat/completions ${auth} ${json} -d ${chat(true)}`,
        ]
      : []),
    ...(models.embedding
      ? [
          `  curl -s ${baseUrl}/v1/embeddings ${auth} ${json} -d '{"model":${JSON.stringify(models.embedding)},"input":"Hello, gateway!"}'`,
        ]
      : []),
    ...(models.image
      ? [
          `  curl -s ${baseUrl}/v1/images/generations ${auth} ${json} -d '{"model":${JSON.stringify(models.image)},"prompt":"A lighthouse at dawn"}'`,
        ]
      : []),
    `  curl -s ${baseUrl}/v1/balance ${auth}`,
    `  curl -s ${baseUrl}/v1/history/generations ${auth}`,
    '',
  ].join('\n');
}
