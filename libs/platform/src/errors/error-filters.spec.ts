import { HttpException, type Logger } from '@nestjs/common';
import { DomainError } from '@gw/contracts';
import { toDomainErrorForHttp } from './http-error.filter';
import { toRpcErrorPayload } from './rpc-error.filter';

/** A logger that keeps what it was asked to print. */
function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = { error: (line: string) => lines.push(line) } as unknown as Logger;
  return { logger, lines };
}

const hostile = 'k'.repeat(100_000);

describe('the error filters', () => {
  it.each([
    ['the HTTP filter', (err: unknown, logger: Logger) => toDomainErrorForHttp(err, logger)],
    ['the RPC filter', (err: unknown, logger: Logger) => toRpcErrorPayload(err, logger)],
  ])('%s logs a hostile 100 KB value truncated, with the stack frames', (_label, filter) => {
    const { logger, lines } = recordingLogger();
    filter(new Error(`Invalid regular expression: /^${hostile}/: Regular expression too large`), logger);
    expect(lines).toHaveLength(1);
    // The stack frames' length depends on where the checkout lives; the quoted input must not.
    const [summary] = lines[0].split(/\n\s+at /);
    expect(summary.length).toBeLessThan(400);
    expect(lines[0]).not.toContain('k'.repeat(300));
    expect(lines[0]).toContain('Invalid regular expression: /^kkk');
    expect(lines[0]).toContain('…');
    expect(lines[0]).toMatch(/\n\s+at /);
  });

  it('answers a database outage with service_unavailable, not internal_error', () => {
    const { logger } = recordingLogger();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    const wrapped = Object.assign(new Error('Query failed'), { driverError: terminated });
    for (const err of [refused, terminated, wrapped, new Error('Connection terminated unexpectedly')]) {
      expect(toRpcErrorPayload(err, logger)).toMatchObject({ code: 'service_unavailable', status: 503 });
    }
    expect(toRpcErrorPayload(new Error('a defect'), logger)).toMatchObject({ code: 'internal_error' });
  });

  it('keeps HTTP exceptions and domain errors as they are', () => {
    const { logger, lines } = recordingLogger();
    expect(toDomainErrorForHttp(new HttpException('Nope', 404), logger).code).toBe('not_found');
    expect(toDomainErrorForHttp(new DomainError('conflict', 'taken'), logger).code).toBe('conflict');
    expect(lines).toHaveLength(0);
  });
});
