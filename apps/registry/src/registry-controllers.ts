import type { Type } from '@nestjs/common';
import { AuditExportController } from './audit-export/audit-export.controller';
import { AdminsController } from './console/admins.controller';
import { ConsoleAuthController } from './console/console-auth.controller';
import { DocsController } from './docs/docs.controller';
import { InternalController } from './internal/internal.controller';
import { LimitsController } from './limits/limits.controller';
import { ImportServerController } from './servers/import-server.controller';
import { McpRegistryController } from './mcp-registry/mcp-registry.controller';
import { PublicationsController } from './publishing/publications.controller';
import { ReadinessController } from './readiness/readiness.controller';
import { ServersController } from './servers/servers.controller';
import { TenantAuthController } from './tenant-auth/tenant-auth.controller';
import { ConnectorController } from './tenant-auth/connector.controller';
import { EnterpriseCheckController } from './tenant-auth/enterprise-check.controller';
import { TenantsController } from './tenants/tenants.controller';
import { UsageController } from './usage/usage.controller';
import { UsersInternalController } from './users/users-internal.controller';
import { UsersController } from './users/users.controller';
import { ConsoleSsoController } from './console-sso/console-sso.controller';
import { ConsoleSsoSettingsController } from './console-sso/console-sso-settings.controller';
import { ScimController } from './scim/scim.controller';
import { ScimTokensController } from './scim/scim-tokens.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { ToolScanController } from './guardrails/tool-scan.controller';
import { GuardrailsConfigController } from './guardrails-config/guardrails-config.controller';
import { ToolDiscoveryController } from './tool-discovery/tool-discovery.controller';
import { ExplainController } from './explain/explain.controller';

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
  ConnectorController,
  EnterpriseCheckController,
  LimitsController,
  UsageController,
  UsersController,
  UsersInternalController,
  ConsoleSsoController,
  ConsoleSsoSettingsController,
  ScimTokensController,
  ScimController,
  AuditExportController,
  WebhooksController,
  McpRegistryController,
  ImportServerController,
  ToolScanController,
  GuardrailsConfigController,
  ToolDiscoveryController,
  ExplainController,
];
