import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { REGISTRY_CONTEXT, type RegistryContext } from './registry-context';
import { REGISTRY_CONTROLLERS } from './registry-controllers';

@Module({})
export class RegistryModule {
  static forRoot(ctx: RegistryContext): DynamicModule {
    return {
      module: RegistryModule,
      // DiscoveryModule: the docs controller reads every mounted route to build /openapi.json.
      imports: [DiscoveryModule],
      controllers: REGISTRY_CONTROLLERS,
      providers: [{ provide: REGISTRY_CONTEXT, useValue: ctx }],
    };
  }
}
