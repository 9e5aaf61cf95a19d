import { All, Controller, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';

/** `Mock Broken`: every call fails as an overloaded upstream would, so fallbacks can be shown. */
@ApiExcludeController()
@Controller('broken')
export class BrokenController {
  @All('*path')
  fail(@Res() res: Response): void {
    res.status(502).json({
      error: { message: 'Mock Broken always fails', type: 'upstream_failure', code: null, param: null },
    });
  }
}
