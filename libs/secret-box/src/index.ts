export * from './secret-box';
export * from './hash-id';
