import { AppMetrics, BoundChildren, scrapeMetrics } from './app-metrics';

describe('AppMetrics', () => {
  it('serves the apps of one process side by side, each under its service label', async () => {
    const gateway = new AppMetrics('api-gateway');
    const inference = new AppMetrics('inference');
    gateway.serve();
    inference.serve();
    try {
      const config = { name: 'test_calls_total', help: 'calls', labelNames: ['subject'] as const };
      gateway.counter(config).labels({ subject: 'a' }).inc(2);
      inference.counter(config).labels({ subject: 'a' }).inc(5);
      expect(gateway.counter(config)).toBe(gateway.counter(config));

      const { body } = await scrapeMetrics();
      expect(body).toContain('test_calls_total{subject="a",service="api-gateway"} 2');
      expect(body).toContain('test_calls_total{subject="a",service="inference"} 5');
      expect(body.match(/# TYPE test_calls_total counter/g)).toHaveLength(1);
      expect(body).toContain('nodejs_eventloop_lag_seconds');

      inference.onApplicationShutdown();
      expect((await scrapeMetrics()).body).not.toContain('service="inference"');
    } finally {
      gateway.onApplicationShutdown();
      inference.onApplicationShutdown();
    }
  });
});

describe('BoundChildren', () => {
  it('binds each combination of label values once', () => {
    const bind = jest.fn((...values: string[]) => ({ values }));
    const children = new BoundChildren(bind);
    expect(children.get('a', 'b')).toBe(children.get('a', 'b'));
    expect(children.get('a', 'c')).not.toBe(children.get('a', 'b'));
    expect(bind).toHaveBeenCalledTimes(2);
  });
});
