import { LoggingEnv, WithHttpListener } from '@gw/platform';

export class MockUpstreamEnv extends WithHttpListener(LoggingEnv, 4010) {}
