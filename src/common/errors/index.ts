export * from './api-exception';
export * from './api-exception.filter';
export * from './database-errors';
export * from './invalid-body';
export * from './openai-error';
export * from './request-body';
export * from './scim-error';
