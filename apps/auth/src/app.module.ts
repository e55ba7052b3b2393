import { Module, type DynamicModule } from '@nestjs/common';
import { AUTH_SERVICES, type AuthServices } from './auth-services';
import { FederationController } from './federation/federation.controller';
import { IdpTestController } from './federation/idp-test.controller';
import { InternalController } from './http/internal.controller';
import { IdJagCheckController } from './enterprise/id-jag-check.controller';
import { InteractionController } from './interaction/interaction.controller';
import { ConsoleLoginController } from './platform/console-login.controller';
import { ConnectedAccountsController } from './vault/connected-accounts.controller';
import { UsersController } from './users/users.controller';
import { VaultController } from './vault/vault.controller';
import { ConnectorLinkController } from './vault/connector-link.controller';
import { UserRevokeController } from './users/user-revoke.controller';

@Module({})
export class AuthModule {
  static forRoot(services: AuthServices): DynamicModule {
    return {
      module: AuthModule,
      controllers: [
        InteractionController,
        ConsoleLoginController,
        FederationController,
        InternalController,
        VaultController,
        ConnectorLinkController,
        ConnectedAccountsController,
        IdpTestController,
        UsersController,
        UserRevokeController,
        IdJagCheckController,
      ],
      providers: [{ provide: AUTH_SERVICES, useValue: services }],
    };
  }
}
