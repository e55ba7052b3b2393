import { Controller, Get } from '@nestjs/common';
import { ChainRuntime } from '../chain-runtime';

/** Liveness for orchestrators: the process answers, with which chains it serves and whether the cache is up. */
@Controller()
export class HealthController {
  constructor(private readonly runtime: ChainRuntime) {}

  @Get('healthz')
  healthz(): { status: 'ok'; chains: string[]; cache: 'up' | 'down' } {
    return { status: 'ok', chains: this.runtime.registry.configuredSlugs, cache: this.runtime.cache.ready ? 'up' : 'down' };
  }
}
