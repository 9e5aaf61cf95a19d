export * from './model-catalogue.dto';
export * from './pricing-validators';
