import { Module, type DynamicModule } from '@nestjs/common';
import { ChainRuntime } from './chain-runtime';
import { HealthController } from './health/health.controller';

/** The chain-reader's Nest module; the MCP routes are registered on the Fastify instance directly. */
@Module({})
export class AppModule {
  static forRoot(runtime: ChainRuntime): DynamicModule {
    return { module: AppModule, controllers: [HealthController], providers: [{ provide: ChainRuntime, useValue: runtime }] };
  }
}
