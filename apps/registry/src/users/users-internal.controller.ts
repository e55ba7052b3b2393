import { Body, Controller, HttpCode, Inject, Post, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isUniqueViolation, Database } from '../db/database';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { audit } from '../model/audit';
import {
  addPasskeyBody,
  linkInfoBody,
  passkeyLookupBody,
  passkeyUsedBody,
  redeemLinkBody,
  userRefBody,
  vaultPurgeBody,
  verifyUserBody,
} from './user-schemas';
import { activeUser, liveLink, MAX_PASSKEYS_PER_USER, redeemLink, verifyUserPassword, type PasskeyRow } from '../model/user-store';
import { InternalGuard } from '../http/tenant-guard';

/**
 * What the auth service asks about the tenant user directory (Bearer INTERNAL_TOKEN): password
 * checks, one-time links, and passkey credentials. Refusals never say which part was wrong.
 */
@Controller('internal/users')
export class UsersInternalController {
  constructor(@Inject(Database) private readonly db: Database) {}

  /** 200 `{ok: true, tenant, username, name}` or 401 `{ok: false}` (unknown, invited, disabled and wrong password alike, in body and time). */
  @Post('verify-password')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async verify(@Body() body: unknown, @Res() reply: FastifyReply) {
    const input = parseInput(verifyUserBody, body, 'body');
    const user = await verifyUserPassword(this.db, input.tenant, input.username, input.password);
    if (!user) return void reply.code(401).header('cache-control', 'no-store').send({ ok: false });
    void reply
      .header('cache-control', 'no-store')
      .send({ ok: true, tenant: user.tenant_id, username: user.username, name: user.name ?? user.username });
  }

  /** Who a live link is for (the set-password page names the account); 404 when unknown, used, expired or the user is disabled. */
  @Post('link')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async link(@Body() body: unknown) {
    const input = parseInput(linkInfoBody, body, 'body');
    const link = await liveLink(this.db, input.tenant, input.token);
    if (!link) throw new ApiError(404, 'NOT_FOUND', 'body.token: this link is unknown, used or expired', 'body.token');
    return { username: link.username, name: link.name, purpose: link.purpose };
  }

  /** Sets the password through a link, consuming it (audited); 404 when the link is not live. */
  @Post('redeem-link')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async redeem(@Body() body: unknown) {
    const input = parseInput(redeemLinkBody, body, 'body');
    const done = await redeemLink(this.db, input.tenant, input.token, input.password, (q, link) =>
      audit(
        q,
        input.tenant,
        `directory:${link.username}`,
        link.purpose === 'invite' ? 'user.accept-invite' : 'user.password-reset',
        link.username,
      ),
    );
    if (!done) throw new ApiError(404, 'NOT_FOUND', 'body.token: this link is unknown, used or expired', 'body.token');
    return { username: done.username, purpose: done.purpose };
  }

  /** An enabled user's passkeys (registration excludes them) and since when their sessions count; 404 when no such enabled user. */
  @Post('passkeys/of-user')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async ofUser(@Body() body: unknown) {
    const input = parseInput(userRefBody, body, 'body');
    const user = await activeUser(this.db, input.tenant, input.username);
    if (!user) throw ApiError.notFound('user', input.username, 'body.username');
    const rows = await this.db.query<PasskeyRow>('SELECT * FROM registry.tenant_user_passkeys WHERE tenant_id = $1 AND username = $2', [
      input.tenant,
      input.username,
    ]);
    return {
      username: user.username,
      name: user.name ?? user.username,
      // Epoch seconds: sessions and refresh tokens issued before this no longer count.
      validAfter: Math.floor(user.sessions_valid_after.getTime() / 1000),
      passkeys: rows.map((r) => ({ credentialId: r.credential_id, transports: r.transports })),
    };
  }

  /** The credential of a passkey sign-in, when its user is enabled; 404 otherwise. */
  @Post('passkeys/lookup')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async lookup(@Body() body: unknown) {
    const input = parseInput(passkeyLookupBody, body, 'body');
    const rows = await this.db.query<PasskeyRow & { user_name: string | null }>(
      `SELECT p.*, u.name AS user_name FROM registry.tenant_user_passkeys p JOIN registry.tenant_users u USING (tenant_id, username)
        WHERE p.tenant_id = $1 AND p.credential_id = $2 AND u.disabled_at IS NULL`,
      [input.tenant, input.credentialId],
    );
    const r = rows[0];
    if (!r) throw ApiError.notFound('passkey', input.credentialId, 'body.credentialId');
    return {
      username: r.username,
      name: r.user_name ?? r.username,
      publicKey: r.public_key,
      counter: Number(r.counter),
      transports: r.transports,
    };
  }

  /** Stores a verified registration (audited); 409 over the per-user cap or when the credential is known. */
  @Post('passkeys/add')
  @HttpCode(201)
  @UseGuards(InternalGuard)
  async add(@Body() body: unknown) {
    const input = parseInput(addPasskeyBody, body, 'body');
    return this.db.tx(async (q) => {
      const users = await q.query(
        'SELECT 1 FROM registry.tenant_users WHERE tenant_id = $1 AND username = $2 AND disabled_at IS NULL FOR UPDATE',
        [input.tenant, input.username],
      );
      if (users.length === 0) throw ApiError.notFound('user', input.username, 'body.username');
      const [{ n }] = await q.query<{ n: string }>(
        'SELECT count(*) AS n FROM registry.tenant_user_passkeys WHERE tenant_id = $1 AND username = $2',
        [input.tenant, input.username],
      );
      if (Number(n) >= MAX_PASSKEYS_PER_USER)
        throw new ApiError(
          409,
          'CONFLICT',
          `body.username: at most ${MAX_PASSKEYS_PER_USER} passkeys per user; remove one first`,
          'body.username',
        );
      try {
        await q.query(
          'INSERT INTO registry.tenant_user_passkeys (tenant_id, credential_id, username, public_key, counter, transports, name) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [input.tenant, input.credentialId, input.username, input.publicKey, input.counter, JSON.stringify(input.transports), input.name],
        );
      } catch (err) {
        if (isUniqueViolation(err))
          throw new ApiError(409, 'CONFLICT', 'body.credentialId: this passkey is already registered', 'body.credentialId');
        throw err;
      }
      await audit(q, input.tenant, `directory:${input.username}`, 'user.passkey-add', input.username, {
        credentialId: input.credentialId,
        name: input.name,
      });
      return { ok: true };
    });
  }

  /** Records a passkey sign-in: the new signature counter and the time. */
  @Post('passkeys/used')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async used(@Body() body: unknown) {
    const input = parseInput(passkeyUsedBody, body, 'body');
    const rows = await this.db.query<{ username: string }>(
      'UPDATE registry.tenant_user_passkeys SET counter = greatest(counter, $3), last_used_at = now() WHERE tenant_id = $1 AND credential_id = $2 RETURNING username',
      [input.tenant, input.credentialId, input.counter],
    );
    if (!rows[0]) throw ApiError.notFound('passkey', input.credentialId, 'body.credentialId');
    await this.db.query('UPDATE registry.tenant_users SET last_login_at = now() WHERE tenant_id = $1 AND username = $2', [
      input.tenant,
      rows[0].username,
    ]);
    return { ok: true };
  }

  /**
   * The auth service reports the vault rows it purged (issue 41): when subjects became namespaced
   * by identity source (`vault.purge-legacy-subjects`, one entry per tenant), and when a tenant's
   * IdP changed (`vault.purge-idp-change`: counts and identity-source ids, never tokens). 404 when
   * the tenant is unknown here.
   */
  @Post('audit-vault-purge')
  @HttpCode(200)
  @UseGuards(InternalGuard)
  async auditVaultPurge(@Body() body: unknown) {
    const input = parseInput(vaultPurgeBody, body, 'body');
    const known = await this.db.query('SELECT 1 FROM registry.tenants WHERE id = $1', [input.tenant]);
    if (known.length === 0) throw ApiError.notFound('tenant', input.tenant, 'body.tenant');
    if (input.reason === 'idp-change') {
      const { rows, connectors, sources, kept, artefacts, linkStates, purgedAt } = input;
      await audit(this.db, input.tenant, 'auth-service', 'vault.purge-idp-change', null, {
        rows,
        connectors,
        sources,
        kept,
        artefacts,
        linkStates,
        purgedAt,
      });
    } else {
      await audit(this.db, input.tenant, 'auth-service', 'vault.purge-legacy-subjects', null, {
        rows: input.rows,
        connectors: input.connectors,
        purgedAt: input.purgedAt,
      });
    }
    return { ok: true };
  }
}
