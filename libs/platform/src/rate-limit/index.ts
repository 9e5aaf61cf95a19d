export * from './failure-backoff';
export * from './in-memory-rate-limit-store';
export * from './jetstream-rate-limit-store';
export * from './rate-limit-store';
export * from './rate-limiter';
