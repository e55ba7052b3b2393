import type { InvokeContext } from '@switchboard/mcp-http';
import { MAX_RELAYED_NOTIFICATIONS, relayNotifications } from './relay-notifications';

function recordingContext() {
  const logs: Array<[string, unknown, string | undefined]> = [];
  const updated: string[] = [];
  const ctx = {
    tenantId: 'acme',
    signal: new AbortController().signal,
    progress: () => undefined,
    log: (level: string, data: unknown, logger?: string) => void logs.push([level, data, logger]),
    resourceUpdated: (uri: string) => void updated.push(uri),
  } as unknown as InvokeContext;
  return { ctx, logs, updated };
}

describe('relayNotifications', () => {
  it('relays logging messages through the call log and resource updates to the call stream', () => {
    const { ctx, logs, updated } = recordingContext();
    const notify = relayNotifications(ctx);
    notify('notifications/message', { level: 'warning', data: { a: 1 }, logger: 'db' });
    notify('notifications/resources/updated', { uri: 'demo://x' });
    expect(logs).toEqual([['warning', { a: 1 }, 'db']]);
    expect(updated).toEqual(['demo://x']);
  });

  it('drops malformed notifications and methods it does not relay', () => {
    const { ctx, logs, updated } = recordingContext();
    const notify = relayNotifications(ctx);
    notify('notifications/message', { level: 'loud', data: 'x' });
    notify('notifications/resources/updated', { uri: 42 });
    notify('notifications/tools/list_changed', {});
    expect(logs).toEqual([]);
    expect(updated).toEqual([]);
  });

  it(`relays at most ${MAX_RELAYED_NOTIFICATIONS} notifications of one call`, () => {
    const { ctx, logs, updated } = recordingContext();
    const notify = relayNotifications(ctx);
    for (let i = 0; i < MAX_RELAYED_NOTIFICATIONS - 1; i++) notify('notifications/message', { level: 'info', data: i });
    notify('notifications/resources/updated', { uri: 'demo://last' });
    notify('notifications/resources/updated', { uri: 'demo://over' });
    notify('notifications/message', { level: 'info', data: 'over' });
    expect(logs).toHaveLength(MAX_RELAYED_NOTIFICATIONS - 1);
    expect(updated).toEqual(['demo://last']);
    // Another call has its own bound.
    const other = recordingContext();
    relayNotifications(other.ctx)('notifications/message', { level: 'info', data: 'fresh' });
    expect(other.logs).toHaveLength(1);
  });
});
