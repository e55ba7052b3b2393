import { NetGuardError, guardedFetch, type NetGuardPolicy } from '@switchboard/net-guard';
import { withConsumerSpan } from '@switchboard/telemetry';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { bullPrefix, createRedis, type RedisClient } from '@switchboard/redis-connection';
import type { Logger } from 'pino';
import type { Database } from '../db/database';
import { ConnectorVaultError, type ConnectorVault } from '../credentials/connector-vault';
import type { Credentials } from '../credentials/credentials';
import type { ServerRow } from '../model/server-row';
import { audit } from '../model/audit';
import { discoverServer } from './discover-server';
import { DISCOVERY_QUEUE, type DiscoverJobData, type DiscoveryQueue } from './discovery-queue';
import { countItems, markDone, markFailed, markQueued, markRunning } from './discovery-state';
import { storeDiscovery } from './store-discovery';
import { emitWebhookEvent } from '../model/webhook-events';

export interface DiscoveryWorkerOptions {
  redisUrl: string;
  prefix: string;
  timeoutMs: number;
  policy: NetGuardPolicy;
  concurrency?: number;
}

/**
 * Consumer side of discovery. `discover` connects to one server and stores what it lists;
 * `refresh-all` enqueues a discovery per server; `maintenance` ends grace periods and keeps
 * OAuth client-credentials tokens handed to gateways fresh. A refused URL (SSRF guard) is
 * not retried; other failures are, with backoff, and the last one marks the server unhealthy.
 */
/** What the worker's scheduled jobs ask of the publisher (publishing/ implements it; discovery/ sits below it). */
export interface CatalogRefresher {
  expireRetired(): Promise<string[]>;
  push(tenantId: string): Promise<unknown>;
}

export class DiscoveryWorker {
  private readonly worker: Worker;
  private readonly connection: RedisClient;
  private readonly fetch;

  constructor(
    private readonly options: DiscoveryWorkerOptions,
    private readonly db: Database,
    private readonly credentials: Credentials,
    private readonly queue: DiscoveryQueue,
    private readonly publisher: CatalogRefresher,
    private readonly logger: Logger,
    /** The admin's linked account of `oauth_user` servers (auth service's vault); without it they cannot be discovered. */
    private readonly vault?: ConnectorVault,
  ) {
    this.fetch = guardedFetch(options.policy);
    this.connection = createRedis(options.redisUrl, { maxRetriesPerRequest: null });
    this.connection.on('error', () => undefined);
    // A CONSUMER span per job, continuing the producer's trace (job.data.traceparent).
    this.worker = new Worker(DISCOVERY_QUEUE, (job) => withConsumerSpan(DISCOVERY_QUEUE, job, () => this.process(job)), {
      connection: this.connection,
      prefix: bullPrefix(options.prefix),
      concurrency: options.concurrency ?? 4,
    });
    this.worker.on('error', (err) => this.logger.warn({ err: err.message }, 'discovery worker error'));
  }

  private async process(job: Job): Promise<unknown> {
    if (job.name === 'discover') return this.discover(job as Job<DiscoverJobData>);
    if (job.name === 'refresh-all') {
      // `oauth_user` servers only once they have a connector (until then a periodic failure would only add noise).
      const rows = await this.db.query<{ tenant_id: string; id: string }>(
        "SELECT s.tenant_id, s.id FROM registry.servers s WHERE s.auth_mode <> 'oauth_user' OR EXISTS (SELECT 1 FROM registry.tenant_connectors c WHERE c.tenant_id = s.tenant_id AND c.server_id = s.id)",
      );
      for (const r of rows) {
        const jobId = await this.queue.enqueue(r.tenant_id, r.id, 'refresh', (job.data as { traceparent?: string }).traceparent);
        await markQueued(this.db, r.tenant_id, r.id, jobId);
      }
      return { enqueued: rows.length };
    }
    if (job.name === 'maintenance') {
      const expired = await this.publisher.expireRetired();
      const refresh = await this.db.query<{ tenant_id: string }>(
        "SELECT DISTINCT tenant_id FROM registry.servers WHERE auth_mode = 'oauth_client_credentials' AND token_expires_at < now() + interval '5 minutes'",
      );
      for (const r of refresh) await this.publisher.push(r.tenant_id);
      return { expired, tokensRefreshed: refresh.length };
    }
    return undefined;
  }

  private async discover(job: Job<DiscoverJobData>): Promise<unknown> {
    const { tenantId, serverId } = job.data;
    const rows = await this.db.query<ServerRow>('SELECT * FROM registry.servers WHERE tenant_id = $1 AND id = $2', [tenantId, serverId]);
    const server = rows[0];
    if (!server) return { skipped: 'server deleted' };
    const jobId = job.id ?? '';
    const attempt = job.attemptsMade + 1;
    const log = this.logger.child({ tenant: tenantId, server: serverId, traceparent: job.data.traceparent, attempt });
    try {
      await markRunning(this.db, tenantId, serverId, jobId, attempt);
      // `oauth_user`: discovered with the tenant admin's own linked account (never published with it: calls use each user's token).
      const headers = server.auth_mode === 'oauth_user' ? await this.adminHeaders(server) : await this.credentials.headers(server);
      const found = await discoverServer({
        url: server.url,
        transport: server.transport,
        headers,
        fetch: this.fetch,
        timeoutMs: this.options.timeoutMs,
      });
      const spoke = { transport: found.transport, era: found.era, protocolVersion: found.protocolVersion };
      const diff = await this.db.tx(async (q) => {
        const stored = await storeDiscovery(q, tenantId, serverId, found.items, spoke);
        await markDone(q, tenantId, serverId, jobId, countItems(found.items));
        return stored;
      });
      log.info({ ...diff, items: found.items.length, ...spoke }, 'discovery stored');
      return diff;
    } catch (err) {
      const refused =
        err instanceof NetGuardError ||
        (err as { cause?: unknown })?.cause instanceof NetGuardError ||
        (err instanceof ConnectorVaultError && err.final);
      const final = refused || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const message = describe(err);
      log.warn({ err: message, final }, 'discovery failed');
      await this.fail(server, jobId, message, final).catch(() => undefined);
      if (refused) throw new UnrecoverableError(message);
      throw err;
    }
  }

  private async adminHeaders(server: ServerRow): Promise<Record<string, string>> {
    if (!this.vault) throw new ConnectorVaultError('UNAVAILABLE', 'the credential vault is not configured');
    return this.vault.discoveryHeaders(this.db, server.tenant_id, server.id);
  }

  private async fail(server: ServerRow, jobId: string, message: string, final: boolean): Promise<void> {
    if (!final) {
      await this.db.tx(async (q) => {
        await q.query('UPDATE registry.servers SET last_error = $3 WHERE tenant_id = $1 AND id = $2', [
          server.tenant_id,
          server.id,
          message,
        ]);
        await markFailed(q, server.tenant_id, server.id, jobId, message, false);
      });
      return;
    }
    await this.db.tx(async (q) => {
      await q.query("UPDATE registry.servers SET health = 'error', last_error = $3 WHERE tenant_id = $1 AND id = $2", [
        server.tenant_id,
        server.id,
        message,
      ]);
      await markFailed(q, server.tenant_id, server.id, jobId, message, true);
      await audit(q, server.tenant_id, 'system', 'server.discovery_failed', server.id, { error: message });
      await emitWebhookEvent(q, server.tenant_id, 'discovery.failed', { serverId: server.id, url: server.url, error: message });
    });
  }

  async close(): Promise<void> {
    await this.worker.close().catch(() => undefined);
    this.connection.disconnect();
  }
}

/** A tenant-safe one-line reason, with the guard's message when the URL was refused. */
function describe(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e; depth++) {
    if (e instanceof NetGuardError) return `URL refused: ${e.message}`;
    if (e instanceof ConnectorVaultError) return `${e.code}: ${e.message}`;
    e = (e as { cause?: unknown }).cause;
  }
  const msg = err instanceof Error ? err.message : String(err);
  return msg.length > 300 ? `${msg.slice(0, 297)}...` : msg;
}
