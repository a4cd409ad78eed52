export * from './field-decorators';
export * from './input-rules';
export * from './input-validation.pipe';
export * from './metadata';
export * from './slug';
export * from './zod-constraint';
export * from './zod-dto';
