export * from './secret-box';
export * from './key-id';
export * from './parse-secrets-keys';
export * from './production-secret-problems';
export * from './hash-id';
export * from './production-secrets-refusal';
