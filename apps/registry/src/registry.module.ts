import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { registryProviders, type RegistryServices } from './registry-services';
import { REGISTRY_CONTROLLERS } from './registry-controllers';

@Module({})
export class RegistryModule {
  static forRoot(services: RegistryServices): DynamicModule {
    return {
      module: RegistryModule,
      // DiscoveryModule: the docs controller reads every mounted route to build /openapi.json.
      imports: [DiscoveryModule],
      controllers: REGISTRY_CONTROLLERS,
      providers: registryProviders(services),
    };
  }
}
