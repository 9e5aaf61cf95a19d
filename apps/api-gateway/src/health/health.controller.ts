import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Readiness, type ReadinessReport } from '@gw/platform';
import type { Response } from 'express';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  /** Liveness: asks no dependency, so an outage elsewhere never gets the gateway restarted. */
  @Get()
  @ApiOkResponse({ description: 'The gateway process is up', schema: { example: { status: 'ok' } } })
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOkResponse({
    description: 'The gateway can serve: NATS and the blob store answer',
    schema: { example: { status: 'ok', checks: { nats: 'up', 'blob-store': 'up' } } },
  })
  @ApiServiceUnavailableResponse({
    description: 'A dependency is down, or the gateway is shutting down',
    schema: {
      example: {
        status: 'unavailable',
        checks: { nats: 'down: connection disconnected', 'blob-store': 'up' },
      },
    },
  })
  async ready(@Res({ passthrough: true }) response: Response): Promise<ReadinessReport['body']> {
    const { ready, body } = await this.readiness.report();
    response.status(ready ? 200 : 503);
    return body;
  }
}
