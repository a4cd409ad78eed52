export * from './invoke-body.schema';
