export * from './responses-validators';
export * from './responses-request.dto';
export * from './responses-response.dto';
