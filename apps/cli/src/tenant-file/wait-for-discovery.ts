import { setTimeout as delay } from 'node:timers/promises';
import type { ApiClient } from '../api/api-client';
import type { Server } from '@switchboard/admin-api';
import { CliError, EXIT } from '../exit-codes';

/** How long `--wait` and `apply` wait for one discovery (the registry retries a failing one with backoff). */
export const DISCOVERY_WAIT_MS = 120_000;
const POLL_MS = { first: 200, max: 2_000 };

/**
 * Polls a server until its discovery ends: the server when it is `ok`; a CliError naming the
 * server and the upstream's error when it is `error` (exit 5) or still running at the deadline (exit 6).
 */
export async function waitForDiscovery(client: ApiClient, id: string, deadlineMs = DISCOVERY_WAIT_MS): Promise<Server> {
  const until = Date.now() + deadlineMs;
  let wait = POLL_MS.first;
  for (;;) {
    const server = await client.call('getServer', { params: { id } });
    const state = server.discovery?.state;
    if (state === 'ok') return server;
    if (state === 'error') {
      throw new CliError(
        `servers.${id}: discovery failed: ${server.discovery?.error ?? server.lastError ?? 'unknown error'}`,
        EXIT.rejected,
        { code: 'DISCOVERY_FAILED', field: `servers.${id}` },
      );
    }
    if (Date.now() + wait > until) {
      throw new CliError(`servers.${id}: discovery still ${state ?? 'pending'} after ${deadlineMs} ms`, EXIT.unavailable, {
        code: 'DISCOVERY_TIMEOUT',
        field: `servers.${id}`,
      });
    }
    await delay(wait);
    wait = Math.min(wait * 2, POLL_MS.max);
  }
}
