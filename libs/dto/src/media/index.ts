export * from './media-generation.dto';
export * from './media-requests.dto';
