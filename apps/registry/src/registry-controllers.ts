import type { Type } from '@nestjs/common';
import { AdminsController } from './console/admins.controller';
import { ConsoleAuthController } from './console/console-auth.controller';
import { DocsController } from './docs/docs.controller';
import { InternalController } from './internal/internal.controller';
import { LimitsController } from './limits/limits.controller';
import { ImportServerController } from './mcp-registry/import-server.controller';
import { McpRegistryController } from './mcp-registry/mcp-registry.controller';
import { PublicationsController } from './publishing/publications.controller';
import { ReadinessController } from './readiness/readiness.controller';
import { ServersController } from './servers/servers.controller';
import { TenantAuthController } from './tenant-auth/tenant-auth.controller';
import { TenantsController } from './tenants/tenants.controller';
import { UsageController } from './usage/usage.controller';
import { UsersInternalController } from './users/users-internal.controller';
import { UsersController } from './users/users.controller';
import { WebhooksController } from './webhooks/webhooks.controller';

/** Every controller of the registry (the module mounts them; the OpenAPI tests and generator read their routes). */
export const REGISTRY_CONTROLLERS: Type[] = [
  TenantsController,
  AdminsController,
  ServersController,
  PublicationsController,
  ReadinessController,
  InternalController,
  DocsController,
  ConsoleAuthController,
  TenantAuthController,
  LimitsController,
  UsageController,
  UsersController,
  UsersInternalController,
  WebhooksController,
  McpRegistryController,
  ImportServerController,
];
