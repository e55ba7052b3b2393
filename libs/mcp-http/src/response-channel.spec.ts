import { edgeKit } from './testing/edge-kit';
import { ResponseChannel } from './response-channel';

function channelled(work: (channel: ResponseChannel) => void, budget?: number) {
  return edgeKit().step({ method: 'POST', url: '/t/acme/mcp' }, (call) => work(new ResponseChannel(call, budget)));
}

const NOTE = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } });

describe('ResponseChannel', () => {
  it('answers plain JSON with its length and extra headers when nothing was notified', async () => {
    const res = await channelled((channel) => {
      channel.setHeader('mcp-session-id', 's1');
      channel.finish('{"jsonrpc":"2.0","id":1,"result":{}}', 200);
    });
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['content-length']).toBe('36');
    expect(res.headers['mcp-session-id']).toBe('s1');
    expect(res.body).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
  });

  it('switches to an event stream at the first notification, the answer its last event', async () => {
    const res = await channelled((channel) => {
      channel.notify(NOTE);
      expect(channel.isStreaming).toBe(true);
      channel.finish('{"jsonrpc":"2.0","id":1,"result":{}}');
    });
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.body).toBe(`event: message\ndata: ${NOTE}\n\nevent: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n`);
  });

  it('drops notifications past the byte budget, with one warning, and stops relaying', async () => {
    const relaying: boolean[] = [];
    const res = await channelled((channel) => {
      channel.notify(NOTE);
      relaying.push(channel.relaying);
      channel.notify(NOTE);
      channel.notify(NOTE);
      relaying.push(channel.relaying);
      channel.finish('{"jsonrpc":"2.0","id":1,"result":{}}');
    }, NOTE.length + 10);
    const events = res.body.split('\n\n').filter(Boolean);
    expect(events).toHaveLength(3);
    expect(events[1]).toContain('NOTIFY_MAX_BYTES_PER_CALL');
    expect(relaying).toEqual([true, false]);
  });

  it('sends the status of an error answer', async () => {
    const res = await channelled((channel) =>
      channel.finish('{"jsonrpc":"2.0","id":1,"error":{"code":-32029,"message":"slow down"}}', 429),
    );
    expect(res.statusCode).toBe(429);
  });
});
