import type { NewAttempt } from './paid-generation-tables';
import { tryProvidersInOrder } from './provider-fallback';
import { UpstreamFailure } from './upstream-failure';

const routes = [{ name: 'First' }, { name: 'Second' }, { name: 'Third' }];

/** A provider call that answers or throws as the table says, by provider name. */
function calls(script: Record<string, UpstreamFailure | string>) {
  const called: string[] = [];
  const call = async (route: { name: string }) => {
    called.push(route.name);
    const step = script[route.name];
    if (step instanceof UpstreamFailure) throw step;
    return step;
  };
  return { called, call };
}

describe('tryProvidersInOrder', () => {
  it('answers with the first provider and records one completed attempt', async () => {
    const attempts: NewAttempt[] = [];
    const { called, call } = calls({ First: 'one' });
    const end = await tryProvidersInOrder({ routes, attempts }, call);
    expect(end).toMatchObject({ outcome: 'answered', route: { name: 'First' }, value: 'one' });
    expect(called).toEqual(['First']);
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 1, provider: 'First', status: 'completed', errorCode: null }),
    ]);
  });

  it('moves on after a retryable failure and numbers the attempts', async () => {
    const attempts: NewAttempt[] = [];
    const { called, call } = calls({
      First: new UpstreamFailure('status', 'bad gateway', 502),
      Second: new UpstreamFailure('timeout', 'slow'),
      Third: 'three',
    });
    const end = await tryProvidersInOrder({ routes, attempts }, call);
    expect(end).toMatchObject({ outcome: 'answered', route: { name: 'Third' }, value: 'three' });
    expect(called).toEqual(['First', 'Second', 'Third']);
    expect(attempts.map((a) => [a.attempt, a.provider, a.status, a.errorCode, a.httpStatus])).toEqual([
      [1, 'First', 'failed', 'status', 502],
      [2, 'Second', 'failed', 'timeout', null],
      [3, 'Third', 'completed', null, null],
    ]);
  });

  it('stops at a failure another provider would not fix', async () => {
    const attempts: NewAttempt[] = [];
    const refused = new UpstreamFailure('status', 'bad request', 400);
    const { called, call } = calls({ First: refused, Second: 'two' });
    const end = await tryProvidersInOrder({ routes, attempts }, call);
    expect(end).toEqual({ outcome: 'exhausted', failure: refused });
    expect(called).toEqual(['First']);
  });

  it('ends exhausted with the last failure when every provider fails', async () => {
    const last = new UpstreamFailure('connect', 'refused');
    const { call } = calls({
      First: new UpstreamFailure('status', 'x', 503),
      Second: new UpstreamFailure('status', 'y', 429),
      Third: last,
    });
    expect(await tryProvidersInOrder({ routes, attempts: [] }, call)).toEqual({
      outcome: 'exhausted',
      failure: last,
    });
  });

  it('turns what a call throws into an UpstreamFailure', async () => {
    const attempts: NewAttempt[] = [];
    const end = await tryProvidersInOrder({ routes: [{ name: 'Only' }], attempts }, async () => {
      throw new Error('ECONNREFUSED');
    });
    expect(end.outcome).toBe('exhausted');
    expect(attempts[0]).toMatchObject({ status: 'failed', errorCode: 'connect' });
  });

  it('records a cancelled attempt and tries no further provider once the signal aborts', async () => {
    const attempts: NewAttempt[] = [];
    const abort = new AbortController();
    const end = await tryProvidersInOrder(
      { routes, attempts },
      async () => {
        abort.abort();
        throw new UpstreamFailure('aborted', 'Request cancelled');
      },
      { signal: abort.signal },
    );
    expect(end).toEqual({ outcome: 'cancelled', route: routes[0] });
    expect(attempts).toEqual([expect.objectContaining({ provider: 'First', status: 'cancelled' })]);
  });

  it('leaves the answering attempt open when the answer goes on after the call', async () => {
    const attempts: NewAttempt[] = [];
    const { call } = calls({ First: new UpstreamFailure('status', 'x', 500), Second: 'stream' });
    const end = await tryProvidersInOrder({ routes, attempts }, call, { closesAttempt: false });
    expect(end).toMatchObject({ outcome: 'answered', route: { name: 'Second' } });
    expect(attempts.map((a) => a.provider)).toEqual(['First']);
  });
});
