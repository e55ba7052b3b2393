import { Controller, Inject } from '@nestjs/common';
import { AUTH_SERVICES, type AuthServices } from '../auth-services';

/** Connector linking and the gateway's token exchange (filled in below). */
@Controller()
export class VaultController {
  constructor(@Inject(AUTH_SERVICES) private readonly s: AuthServices) {}
}
