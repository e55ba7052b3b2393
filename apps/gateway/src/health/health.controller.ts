import { Controller, Get, HttpException, HttpStatus } from '@nestjs/common';
import { GatewayRuntime } from '../gateway-runtime';

/** Liveness and readiness for orchestrators. */
@Controller()
export class HealthController {
  constructor(private readonly runtime: GatewayRuntime) {}

  @Get('healthz')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /**
   * Ready once at least one tenant catalog is compiled and served, or, when registry tenants are
   * fetched on first use, once that source is listening (it holds none until a request asks).
   */
  @Get('readyz')
  readyz(): { status: 'ready'; tenants: number } {
    const tenants = this.runtime.directory.size;
    if (tenants === 0 && !this.runtime.cold)
      throw new HttpException({ status: 'not ready', reason: 'no tenant catalog loaded' }, HttpStatus.SERVICE_UNAVAILABLE);
    return { status: 'ready', tenants };
  }
}
