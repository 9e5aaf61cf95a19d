import { Controller, Get } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';

/** How many calls each route answered, by the status it answered: `{"POST /alpha/v1/chat/completions": {"200": 3}}`. */
export type CallCounts = Record<string, Record<string, number>>;

/**
 * Counts the calls the mock answered, so that a test can see how often the gateway called a
 * provider (it must not hammer one that answered 429): a call is counted when its answer has been
 * sent, under its method and path and the status it got; a connection the mock cut or that the
 * caller closed first counts under `closed`.
 */
export class CallLog {
  private readonly counts: CallCounts = {};

  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    const route = `${req.method} ${req.path}`;
    let counted = false;
    const count = (outcome: string) => {
      if (counted) return;
      counted = true;
      const byOutcome = (this.counts[route] ??= {});
      byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
    };
    res.once('finish', () => count(String(res.statusCode)));
    res.once('close', () => count('closed'));
    next();
  };

  snapshot(): CallCounts {
    return Object.fromEntries(
      Object.entries(this.counts).map(([route, byOutcome]) => [route, { ...byOutcome }]),
    );
  }
}

/** `GET /calls`: the counts of the mock's CallLog (not a provider route; the calls to it are not counted). */
@ApiExcludeController()
@Controller('calls')
export class CallsController {
  constructor(private readonly log: CallLog) {}

  @Get()
  calls(): CallCounts {
    return this.log.snapshot();
  }
}
