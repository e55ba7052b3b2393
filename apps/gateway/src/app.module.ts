import { Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import { CATALOG_SOURCE, type CatalogSource } from './catalog-source/catalog-source';
import type { GatewayConfig } from './config/config';
import { GatewayRuntime } from './gateway-runtime';
import { HealthController } from './health/health.controller';
import { GATEWAY_CONFIG, GATEWAY_LOGGER } from './tokens';
import { WellKnownController } from './well-known/well-known.controller';

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, source: CatalogSource, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      controllers: [HealthController, WellKnownController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: CATALOG_SOURCE, useValue: source },
        { provide: GATEWAY_LOGGER, useValue: logger },
        GatewayRuntime,
      ],
    };
  }
}
