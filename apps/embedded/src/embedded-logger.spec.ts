import { createEmbeddedLogger } from './embedded-logger';

describe('createEmbeddedLogger', () => {
  const written: string[] = [];
  beforeEach(() => {
    written.length = 0;
    for (const stream of [process.stdout, process.stderr]) {
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        written.push(String(chunk));
        return true;
      });
    }
  });
  afterEach(() => jest.restoreAllMocks());

  it('leaves out only the DataSource name warning of the one-process composition', () => {
    const logger = createEmbeddedLogger('billing', 'log');
    logger.warn('A data source with the default name is already registered.', 'DataSourceNameRegistry');
    logger.warn('Event will be redelivered', 'DurableEvents');
    logger.log('started', 'NestMicroservice');
    expect(written.join('')).not.toContain('already registered');
    expect(written.join('')).toContain('Event will be redelivered');
    expect(written.join('')).toContain('started');
  });

  it('honours the level', () => {
    createEmbeddedLogger('billing', 'warn').log('quiet', 'Any');
    expect(written.join('')).not.toContain('quiet');
  });
});
