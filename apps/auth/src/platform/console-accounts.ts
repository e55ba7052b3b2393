import type { AdapterPayload } from 'oidc-provider';
import type { Pool } from 'pg';
import type { SecretBox } from '@switchboard/secret-box';
import { PgAdapter } from '../db/pg-adapter';
import { consoleAccountId, PLATFORM_ID } from './platform-issuer';

/** Claims the platform issuer puts in console access tokens beside `sub`. */
export type ConsoleAccountClaims = {
  /** The administrator's tenant (never the platform id). */
  tid: string;
  /** Display name as the registry reported it at the last sign-in. */
  name: string;
};

/**
 * What the platform issuer remembers of a console administrator between sign-in and later
 * token issuance (refresh included): the display name the registry returned. Stored in the
 * oidc_model table under the platform id, so it expires and is swept like any artefact.
 */
export class ConsoleAccounts {
  private readonly store: PgAdapter;

  constructor(
    pool: Pool,
    schema: string,
    box: SecretBox,
    private readonly ttlSeconds: number,
  ) {
    this.store = new PgAdapter(pool, schema, PLATFORM_ID, 'ConsoleAccount', box);
  }

  /** Records a successful sign-in; returns the account id (`<tenant>|<username>`). */
  async remember(tenant: string, username: string, name: string): Promise<string> {
    const accountId = consoleAccountId(tenant, username);
    await this.store.upsert(accountId, { name } as AdapterPayload, this.ttlSeconds);
    return accountId;
  }

  /** Token claims of an account id; the tenant comes from the id itself (tenant ids never contain `|`). */
  async claims(accountId: string): Promise<ConsoleAccountClaims> {
    const bar = accountId.indexOf('|');
    const stored = await this.store.find(accountId);
    const name = typeof stored?.name === 'string' ? stored.name : accountId.slice(bar + 1);
    return { tid: accountId.slice(0, bar), name };
  }
}
