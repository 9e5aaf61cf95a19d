export * from './pricing';
export * from './generation-cost';
export * from './audio-pricing';
