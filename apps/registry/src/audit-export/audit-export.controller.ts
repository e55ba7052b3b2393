import { Body, Controller, Delete, Get, Inject, Post, Put, UseGuards } from '@nestjs/common';
import { checkUrl, NetGuardError, type NetGuardPolicy } from '@switchboard/net-guard';
import { type Queryable, Database } from '../db/database';
import { ApiOperation, ApiTag } from '../docs/api-operation';
import { ApiError } from '../http/api-error';
import { parseInput } from '../http/parse-input';
import { audit } from '../model/audit';
import { auditExportSecretAad } from '../crypto/secret-aad';
import type { AuditExportRow } from './audit-export-store';
import { auditExportView, auditExportViewSchema, normalisePrefix, putAuditExportBody, type PutAuditExport } from './audit-export-schemas';
import { objectUrl } from './put-s3-object';
import { TenantGuard, Tenant } from '../http/tenant-guard';
import type { TenantPrincipal } from '../http/authenticator';
import { SecretBox } from '@switchboard/secret-box';
import { NET_POLICY } from '../http/registry-tokens';

const SELECT = 'SELECT * FROM registry.audit_exports WHERE tenant_id = $1';

/**
 * The calling tenant's audit export: where its audit log is streamed (an S3-compatible bucket)
 * and how far that got. The secret access key is sealed at rest and never returned; the
 * endpoint is checked by the SSRF guard here and again at every connection.
 */
@Controller('v1')
@ApiTag('Audit export')
export class AuditExportController {
  constructor(
    @Inject(Database) private readonly db: Database,
    @Inject(SecretBox) private readonly box: SecretBox,
    @Inject(NET_POLICY) private readonly policy: NetGuardPolicy,
  ) {}

  @Get('audit-export')
  @ApiOperation({
    operationId: 'getAuditExport',
    summary: 'The audit export sink and its state: status (pending / ok / error), lastError, entries exported',
    auth: 'tenant',
    response: auditExportViewSchema,
  })
  @UseGuards(TenantGuard)
  async get(@Tenant() { tenantId }: TenantPrincipal) {
    const [row] = await this.db.query<AuditExportRow>(SELECT, [tenantId]);
    return auditExportView(row);
  }

  @Put('audit-export')
  @ApiOperation({
    operationId: 'putAuditExport',
    summary:
      'Stream the audit log to an S3-compatible bucket (gzipped JSON Lines per day); secretAccessKey is required the first time and kept when left out. The cursor is kept across changes',
    auth: 'tenant',
    body: putAuditExportBody,
    response: auditExportViewSchema,
    errors: { '400': 'VALIDATION naming the field; URL_REFUSED (body.endpoint) when the SSRF guard refuses the endpoint' },
  })
  @UseGuards(TenantGuard)
  async put(@Tenant() { tenantId, actor }: TenantPrincipal, @Body() body: unknown) {
    const input = parseInput(putAuditExportBody, body, 'body');
    const prefix = normalisePrefix(input.prefix);
    await this.checkEndpoint(input);
    const sealed = input.secretAccessKey === undefined ? null : this.box.seal(input.secretAccessKey, auditExportSecretAad(tenantId));
    const row = await this.db.tx(async (q) => {
      const [saved] = await q.query<AuditExportRow>(
        `INSERT INTO registry.audit_exports AS e (tenant_id, enabled, endpoint, bucket, region, prefix, path_style, access_key_id, secret_sealed)
         SELECT $1, $2::boolean, $3, $4, $5, $6, $7::boolean, $8, $9::text WHERE $9::text IS NOT NULL
         ON CONFLICT (tenant_id) DO UPDATE SET enabled = $2, endpoint = $3, bucket = $4, region = $5, prefix = $6, path_style = $7, access_key_id = $8,
           secret_sealed = COALESCE($9, e.secret_sealed), status = 'pending', last_error = NULL, failures = 0, next_attempt_at = now(), settings_version = e.settings_version + 1, updated_at = now()
         RETURNING *`,
        [tenantId, input.enabled, input.endpoint, input.bucket, input.region, prefix, input.pathStyle, input.accessKeyId, sealed],
      );
      // Without a secret, the INSERT selects no row, so only an existing export is updated.
      const updated = saved ?? (await this.updateWithoutSecret(q, tenantId, input, prefix));
      await audit(q, tenantId, actor, 'audit-export.update', tenantId, {
        endpoint: input.endpoint,
        bucket: input.bucket,
        region: input.region,
        prefix,
        enabled: input.enabled,
        secretChanged: sealed !== null,
      });
      return updated;
    });
    return auditExportView(row);
  }

  @Delete('audit-export')
  @ApiOperation({
    operationId: 'deleteAuditExport',
    summary: 'Stop exporting and forget the sink and its cursor (a new export starts from the first entry)',
    auth: 'tenant',
    response: auditExportViewSchema,
  })
  @UseGuards(TenantGuard)
  async remove(@Tenant() { tenantId, actor }: TenantPrincipal) {
    await this.db.tx(async (q) => {
      const rows = await q.query('DELETE FROM registry.audit_exports WHERE tenant_id = $1 RETURNING tenant_id', [tenantId]);
      if (rows.length === 0) throw new ApiError(404, 'NOT_FOUND', 'no audit export is configured');
      await audit(q, tenantId, actor, 'audit-export.delete', tenantId);
    });
    return auditExportView(undefined);
  }

  @Post('audit-export/run')
  @ApiOperation({
    operationId: 'runAuditExport',
    summary: 'Export now: makes the export due at once (also ends an error back-off); the exporter picks it up within its poll interval',
    auth: 'tenant',
    response: auditExportViewSchema,
  })
  @UseGuards(TenantGuard)
  async run(@Tenant() { tenantId }: TenantPrincipal) {
    const [row] = await this.db.query<AuditExportRow>(
      'UPDATE registry.audit_exports SET next_attempt_at = now() WHERE tenant_id = $1 RETURNING *',
      [tenantId],
    );
    if (!row) throw new ApiError(404, 'NOT_FOUND', 'no audit export is configured');
    return auditExportView(row);
  }

  private async updateWithoutSecret(q: Queryable, tenantId: string, input: PutAuditExport, prefix: string): Promise<AuditExportRow> {
    const [row] = await q.query<AuditExportRow>(
      `UPDATE registry.audit_exports AS e SET enabled = $2, endpoint = $3, bucket = $4, region = $5, prefix = $6, path_style = $7, access_key_id = $8,
         status = 'pending', last_error = NULL, failures = 0, next_attempt_at = now(), settings_version = e.settings_version + 1, updated_at = now()
       WHERE tenant_id = $1 RETURNING *`,
      [tenantId, input.enabled, input.endpoint, input.bucket, input.region, prefix, input.pathStyle, input.accessKeyId],
    );
    if (!row)
      throw new ApiError(
        400,
        'VALIDATION',
        'body.secretAccessKey: is required when the audit export is first configured',
        'body.secretAccessKey',
      );
    return row;
  }

  /** The URL the exporter will connect to (bucket host included for virtual-hosted style) must pass the SSRF guard. */
  private async checkEndpoint(input: PutAuditExport): Promise<void> {
    try {
      await checkUrl(objectUrl(input, 'x'), this.policy);
    } catch (err) {
      if (err instanceof NetGuardError)
        throw new ApiError(400, 'URL_REFUSED', `body.endpoint: ${err.message}`, 'body.endpoint', { reason: err.code }, { cause: err });
      throw err;
    }
  }
}
