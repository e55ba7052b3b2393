import { decodeBody, type ClassifiedMessage } from '@switchboard/protocol';
import { POST_HEADERS, edgeKit, kitTarget, rpc, type KitOptions } from './testing/edge-kit';
import { answerBatch } from './answer-batch';
import { guardRequest } from './edge-guard';

function members(...bodies: string[]): ClassifiedMessage[] {
  const decoded = decodeBody(Buffer.from(`[${bodies.join(',')}]`));
  if (decoded.kind !== 'batch') throw new Error('expected a batch');
  return decoded.messages;
}

function batch(items: ClassifiedMessage[], version = '2025-03-26', options: KitOptions = {}) {
  const kit = edgeKit(options);
  return kit.step({ method: 'POST', url: '/t/acme/mcp', headers: { ...POST_HEADERS, 'mcp-protocol-version': version } }, async (call) => {
    guardRequest(call);
    await answerBatch(call, items);
  });
}

describe('answerBatch', () => {
  it('answers the requests in order, one array, skipping notifications', async () => {
    const res = await batch(
      members(
        rpc('ping', {}, 1),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        rpc('tools/call', { name: 'echo', arguments: { text: 'b' } }, 2),
      ),
    );
    expect(res.statusCode).toBe(200);
    const answers = res.json() as Array<{ id: number }>;
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
  });

  it('answers a batch of notifications only with 202', async () => {
    const res = await batch(members('{"jsonrpc":"2.0","method":"notifications/initialized"}'));
    expect(res.statusCode).toBe(202);
  });

  it('refuses batches at any version but 2025-03-26', async () => {
    const res = await batch(members(rpc('ping')), '2025-06-18');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('JSON-RPC batches are only allowed at protocol version 2025-03-26, not 2025-06-18');
  });

  it('refuses initialize as a member', async () => {
    const res = await batch(
      members(rpc('initialize', { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } })),
    );
    expect(res.json()[0].error.message).toBe('initialize must not be part of a batch');
  });

  it('counts members before running any (batchMaxItems, the tenant override first)', async () => {
    const res = await batch(members(rpc('ping', {}, 1), rpc('ping', {}, 2), rpc('ping', {}, 3)), '2025-03-26', {
      targets: [kitTarget('acme', { limits: { batchMaxItems: 2 } })],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.data).toEqual({ limit: 'batchMaxItems', max: 2, count: 3 });
  });

  it('stops at the response byte bound with one error', async () => {
    const big = 'x'.repeat(400);
    const items = members(
      rpc('tools/call', { name: 'echo', arguments: { text: big } }, 1),
      rpc('tools/call', { name: 'echo', arguments: { text: big } }, 2),
    );
    const res = await batch(items, '2025-03-26', { batchMaxResponseBytes: 600 });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.data).toEqual({ limit: 'batchMaxResponseBytes', max: 600 });
  });
});
