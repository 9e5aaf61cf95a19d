export * from './messages-validators';
export * from './messages-request.dto';
export * from './messages-response.dto';
