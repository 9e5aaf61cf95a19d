import type { OnApplicationShutdown } from '@nestjs/common';
import {
  AggregatorRegistry,
  collectDefaultMetrics,
  Counter,
  type CounterConfiguration,
  Gauge,
  type GaugeConfiguration,
  Histogram,
  type HistogramConfiguration,
  Registry,
} from 'prom-client';
import type { ScrapeReading } from './scrape-reading';

/** One value of a gauge read at scrape time, with its labels when the gauge has any. */
export interface ScrapedSample<Label extends string> {
  labels?: Partial<Record<Label, string>>;
  value: number;
}

/** The process's own figures (CPU, memory, event-loop lag, GC): one set however many apps it hosts. */
const processRegistry = new Registry();
let processMetricsCollected = false;
/** The registries of the apps this process runs, each with its `service` label. */
const servedRegistries = new Set<Registry>();

/**
 * One app's Prometheus metrics. Each app has its own registry, labelled with its service name, so
 * that the embedded mode, which runs every app in one process, serves them side by side at one
 * scrape (scrapeMetrics) without mixing. A metric is declared where it is counted, by name: the
 * same name asked twice is the same metric.
 */
export class AppMetrics implements OnApplicationShutdown {
  readonly registry = new Registry();

  constructor(readonly service: string) {
    this.registry.setDefaultLabels({ service });
  }

  counter<Label extends string>(config: CounterConfiguration<Label>): Counter<Label> {
    const known = this.registry.getSingleMetric(config.name);
    return (known as Counter<Label> | undefined) ?? new Counter({ ...config, registers: [this.registry] });
  }

  histogram<Label extends string>(config: HistogramConfiguration<Label>): Histogram<Label> {
    const known = this.registry.getSingleMetric(config.name);
    return (
      (known as Histogram<Label> | undefined) ?? new Histogram({ ...config, registers: [this.registry] })
    );
  }

  gauge<Label extends string>(config: GaugeConfiguration<Label>): Gauge<Label> {
    const known = this.registry.getSingleMetric(config.name);
    return (known as Gauge<Label> | undefined) ?? new Gauge({ ...config, registers: [this.registry] });
  }

  /**
   * A gauge set at each scrape from `reading`; `samples` gives every label combination it knows,
   * zeros included, so a state that emptied reads 0. While the reading fails or is late the gauge
   * shows no figure (NaN without labels, no samples with them), never a stale or a zero one.
   */
  gaugeAtScrape<Value, Label extends string = never>(
    config: Omit<GaugeConfiguration<Label>, 'collect' | 'registers'>,
    reading: ScrapeReading<Value>,
    samples: (value: Value) => ScrapedSample<Label>[],
  ): Gauge<Label> {
    return this.gauge<Label>({
      ...config,
      async collect() {
        const value = await reading.take();
        this.reset();
        if (value === null) {
          if (!config.labelNames?.length) this.set(Number.NaN);
          return;
        }
        for (const sample of samples(value)) {
          if (sample.labels) this.set(sample.labels, sample.value);
          else this.set(sample.value);
        }
      },
    });
  }

  /** From now on this app's metrics are part of the process's scrape. */
  serve(): void {
    if (!processMetricsCollected) {
      collectDefaultMetrics({ register: processRegistry });
      processMetricsCollected = true;
    }
    servedRegistries.add(this.registry);
  }

  /** A stopped app's figures leave the scrape (the embedded host closes its apps one by one). */
  onApplicationShutdown(): void {
    servedRegistries.delete(this.registry);
  }
}

/**
 * Children of a labelled metric by their label values, so a hot path finds its pre-bound child with
 * one map lookup instead of prom-client hashing a label object on every call.
 */
export class BoundChildren<Child> {
  private readonly children = new Map<string, Child>();

  constructor(private readonly bind: (...values: string[]) => Child) {}

  get(...values: string[]): Child {
    const key = values.join('\u0000');
    let child = this.children.get(key);
    if (!child) {
      child = this.bind(...values);
      this.children.set(key, child);
    }
    return child;
  }
}

/** The Prometheus text of the process and of every app it serves (gauges are collected now). */
export async function scrapeMetrics(): Promise<{ contentType: string; body: string }> {
  const registries = [processRegistry, ...servedRegistries];
  const merged = AggregatorRegistry.aggregate(await Promise.all(registries.map((r) => r.getMetricsAsJSON())));
  return { contentType: merged.contentType, body: await merged.metrics() };
}
