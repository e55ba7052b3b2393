export * from './tenant-seed-error';
export * from './read-tenant-seed';
export * from './tenant-document-feed';
export * from './catalog-feed-reader';
