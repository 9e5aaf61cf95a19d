export * from './speech-request.dto';
