export * from './model-alias';
