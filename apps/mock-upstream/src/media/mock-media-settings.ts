import type { MockUpstreamEnv } from '../mock-upstream.env';

/** What the media routes take from the environment. */
export type MockMediaSettings = Pick<MockUpstreamEnv, 'MOCK_MEDIA_JOB_MS'>;

export const MOCK_MEDIA_SETTINGS = Symbol('MockMediaSettings');
