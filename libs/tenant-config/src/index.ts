export { TenantSeedError, type TenantSeedErrorCode } from './tenant-seed-error';
export { type CatalogSpec, readTenantSeed, type TenantSeed, type UpstreamSpec } from './read-tenant-seed';
export { TenantDocumentFeed, type TenantDocumentFeedOptions } from './tenant-document-feed';
export { CatalogFeedReader, type CatalogFeedReaderOptions } from './catalog-feed-reader';
export { LazyTenantDocumentFeed, type LazyFeedStats, type LazyTenantDocumentFeedOptions } from './lazy-tenant-document-feed';
export { ColdLoads, type ColdLoadStats, type ColdLoadsOptions } from './cold-loads';
export { RollingWindow } from './rolling-window';
