import { Injectable, Optional } from '@nestjs/common';
import { AppMetrics, ScrapeReading } from '@gw/platform';
import { GenerationOutboxRepository } from './generation-outbox.repository';

/**
 * The outbox's depth at scrape time: events stored but not yet published. It stays near zero while
 * the broker answers; a depth that grows means generations are not reaching billing.
 */
@Injectable()
export class OutboxMetrics {
  constructor(outbox: GenerationOutboxRepository, @Optional() metrics?: AppMetrics) {
    metrics?.gaugeAtScrape(
      {
        name: 'gw_outbox_unpublished_events',
        help: 'Generation events stored in the outbox and not yet published to the broker',
      },
      new ScrapeReading(() => outbox.countUnpublished()),
      (depth) => [{ value: depth }],
    );
  }
}
