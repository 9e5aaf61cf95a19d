export * from './expect-eventually';
export * from './free-port';
export * from './test-database';
export * from './test-nats';
export * from './silent-logger';
export * from './fixtures';
export * from './stand-in-billing';
export * from './malformed-messages';
