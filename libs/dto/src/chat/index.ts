export * from './chat-content';
export * from './chat-message.dto';
export * from './provider-preferences.dto';
export * from './chat-completion-request.dto';
export * from './chat-completion.dto';
export * from './chat-validators';
export * from './chat-completion-message.dto';
export * from './reasoning-details';
