import { Module, type DynamicModule } from '@nestjs/common';
import { AdminsController } from './console/admins.controller';
import { ConsoleAuthController } from './console/console-auth.controller';
import { DocsController } from './docs/docs.controller';
import { InternalController } from './internal/internal.controller';
import { LimitsController } from './limits/limits.controller';
import { UsageController } from './usage/usage.controller';
import { PublicationsController } from './publishing/publications.controller';
import { ReadinessController } from './readiness/readiness.controller';
import { REGISTRY_CONTEXT, type RegistryContext } from './registry-context';
import { ServersController } from './servers/servers.controller';
import { TenantAuthController } from './tenant-auth/tenant-auth.controller';
import { TenantsController } from './tenants/tenants.controller';

@Module({})
export class RegistryModule {
  static forRoot(ctx: RegistryContext): DynamicModule {
    return {
      module: RegistryModule,
      controllers: [TenantsController, AdminsController, ServersController, PublicationsController, ReadinessController, InternalController, DocsController, ConsoleAuthController, TenantAuthController, LimitsController, UsageController],
      providers: [{ provide: REGISTRY_CONTEXT, useValue: ctx }],
    };
  }
}
