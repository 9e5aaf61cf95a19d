import { AppMetrics, BoundChildren, scrapeMetrics } from './app-metrics';
import { ScrapeReading } from './scrape-reading';

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

describe('AppMetrics.gaugeAtScrape', () => {
  it('sets its gauges from one read per scrape, and shows no figure while the read fails', async () => {
    const metrics = new AppMetrics('media');
    metrics.serve();
    try {
      let reads = 0;
      let counts: Record<string, number> | null = { pending: 2 };
      const reading = new ScrapeReading(async () => {
        reads += 1;
        if (!counts) throw new Error('database down');
        return counts;
      });
      metrics.gaugeAtScrape({ name: 'test_jobs', help: 'jobs', labelNames: ['status'] }, reading, (found) =>
        ['pending', 'failed'].map((status) => ({ labels: { status }, value: found[status] ?? 0 })),
      );
      metrics.gaugeAtScrape({ name: 'test_jobs_pending', help: 'pending' }, reading, (found) => [
        { value: found['pending'] ?? 0 },
      ]);

      const { body } = await scrapeMetrics();
      expect(body).toContain('test_jobs{status="pending",service="media"} 2');
      expect(body).toContain('test_jobs{status="failed",service="media"} 0');
      expect(body).toContain('test_jobs_pending{service="media"} 2');
      expect(reads).toBe(1);

      counts = null;
      const failed = (await scrapeMetrics()).body;
      expect(failed).not.toContain('test_jobs{');
      // prom-client writes NaN as `Nan`, which Prometheus reads case-insensitively.
      expect(failed).toMatch(/^test_jobs_pending\{service="media"\} nan$/im);
    } finally {
      metrics.onApplicationShutdown();
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
