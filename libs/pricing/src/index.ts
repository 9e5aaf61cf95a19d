export * from './pricing';
export * from './audio-pricing';
