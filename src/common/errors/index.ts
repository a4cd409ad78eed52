export * from './api-exception';
export * from './api-exception.filter';
export * from './request-body';
export * from './database-errors';
export * from './openai-error';
export * from './invalid-body';
