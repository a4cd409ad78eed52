export * from './chat-message.schema';
export * from './model-settings.schema';
export * from './stored-items';
export * from './thread-message-input.schema';
export * from './zod-issues';
