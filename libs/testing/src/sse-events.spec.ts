import { sseEvents, sseMessages } from './sse-events';

/** A streaming Response whose body arrives in the given chunks. */
function streamed(...chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

describe('sseEvents', () => {
  it('reads events split across chunks, with id and retry, skipping comments', async () => {
    const next = sseEvents(streamed(': keep-alive\n\n', 'id: a1\nretry: 500\ndata:', ' {"x":1}\n\nid: a2\nda', 'ta: two\n\n'));
    await expect(next()).resolves.toEqual({ id: 'a1', retry: '500', data: '{"x":1}' });
    await expect(next()).resolves.toEqual({ id: 'a2', data: 'two' });
    await expect(next()).rejects.toThrow('stream ended');
  });
});

describe('sseMessages', () => {
  it('parses the data of each event as JSON and skips events without data', async () => {
    const next = sseMessages(streamed('id: prime\ndata:\n\n', 'event: message\ndata: {"jsonrpc":"2.0","id":1}\n\n'));
    await expect(next()).resolves.toEqual({ jsonrpc: '2.0', id: 1 });
  });
});
