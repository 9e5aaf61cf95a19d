export * from './embedding-request.dto';
export * from './embedding-list.dto';
