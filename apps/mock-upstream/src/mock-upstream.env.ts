import { LoggingEnv, WithHttpListener } from '@gw/platform';
import { IsInt, Max, Min } from 'class-validator';

export class MockUpstreamEnv extends WithHttpListener(LoggingEnv, 4010) {
  /**
   * How long a video job takes from creation to completed (a prompt's `[[delay:MS]]` overrides it):
   * long enough that a demo sees it pending, short enough for a test's bounded poll.
   */
  @IsInt()
  @Min(0)
  @Max(600_000)
  MOCK_MEDIA_JOB_MS: number = 5_000;
}
