import { Injectable, Optional } from '@nestjs/common';
import { GENERATION_STATUSES } from '@gw/contracts';
import { AppMetrics, ScrapeReading } from '@gw/platform';
import { MediaGenerationRepository } from './media-generation.repository';

/**
 * The media jobs billing has not been told the end of, by status, at scrape time: the queue
 * (pending), the work under way (processing) and the finished ones still waiting to settle. Settled
 * generations are history, and counting them would read the whole table at every scrape.
 */
@Injectable()
export class MediaGenerationMetrics {
  constructor(generations: MediaGenerationRepository, @Optional() metrics?: AppMetrics) {
    metrics?.gaugeAtScrape(
      {
        name: 'gw_media_generations',
        help: 'Media generations not yet settled with billing, by status',
        labelNames: ['status'],
      },
      new ScrapeReading(() => generations.countUnsettledByStatus()),
      (counts) =>
        GENERATION_STATUSES.map((status) => ({ labels: { status }, value: counts.get(status) ?? 0 })),
    );
  }
}
