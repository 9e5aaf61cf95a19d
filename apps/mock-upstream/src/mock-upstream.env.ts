import { IsIn, IsInt, IsString, Max, Min } from 'class-validator';
import type { LogFormat } from '@gw/platform';

export class MockUpstreamEnv {
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 4010;

  @IsString()
  HOST: string = '0.0.0.0';

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: LogFormat = 'pretty';

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';
}
