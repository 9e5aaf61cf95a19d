export * from './catalogue-config';
export * from './catalogue.env';
export * from './catalogue-loader';
export * from './model-catalogue';
export * from './model-endpoints';
