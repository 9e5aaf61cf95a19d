export * from './audio-signature';
export * from './transcription-request.dto';
