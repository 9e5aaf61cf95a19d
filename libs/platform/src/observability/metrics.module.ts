import { type DynamicModule, Global, Module } from '@nestjs/common';
import { AppMetrics } from './app-metrics';

/** Gives every provider of an app its AppMetrics, served at scrape while the app runs. */
@Global()
@Module({})
export class MetricsModule {
  static forApp(service: string): DynamicModule {
    return {
      module: MetricsModule,
      providers: [
        {
          provide: AppMetrics,
          useFactory: () => {
            const metrics = new AppMetrics(service);
            metrics.serve();
            return metrics;
          },
        },
      ],
      exports: [AppMetrics],
    };
  }
}
