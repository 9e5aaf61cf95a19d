// class-transformer's @Type reads decorator metadata while the message classes are defined.
import 'reflect-metadata';
export * from './contract';
export * from './errors';
export * from './principal';
export * from './auth/auth.contracts';
export * from './billing/billing.contracts';
export * from './media/media.contracts';
export * from './storage/storage.contracts';
export * from './auth/api-key-hash';
export * from './auth/oauth.contracts';
export * from './auth/pkce';
export * from './inference/inference.contracts';
export * from './inference/formats.contracts';
export * from './inference/transcriptions.contracts';
export * from './inference/embeddings.contracts';
export * from './inference/paid-request';
export * from './billing/decimal-amount';
export * from './storage/storage-errors';
