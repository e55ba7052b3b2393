export * from './net-guard-error';
export * from './net-guard-policy';
export * from './blocked-range';
export * from './check-url';
export * from './guarded-lookup';
export * from './guarded-fetch';
