export * from './audio-signature';
export * from './transcription-request.dto';
export * from './transcription-result.dto';
