export * from './free-form';
export * from './metadata';
export * from './validated-body.pipe';
export * from './zod-constraint';
export * from './slug';
