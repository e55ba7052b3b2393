import { edgeKit } from './testing/edge-kit';
import { answerFailure, crashed } from './answer-failure';

describe('answerFailure', () => {
  it('answers a body over the limit 413 naming the limit, and records the refusal', async () => {
    const kit = edgeKit({ bodyLimit: 10 });
    const res = await kit.step({ method: 'POST', url: '/t/acme/mcp', payload: 'x'.repeat(20) }, (call) =>
      answerFailure(call, { statusCode: 413, message: 'too large' }),
    );
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatchObject({
      code: -32600,
      message: 'Request body exceeds the limit of 10 bytes',
      data: { limit: 'bodyLimit', bytes: 10 },
    });
    expect(kit.refusals).toMatchObject([{ status: 413, tenantId: undefined }]);
  });

  it('answers another client error with its status and message', async () => {
    const kit = edgeKit();
    const res = await kit.step({ method: 'POST', url: '/t/acme/mcp' }, (call) =>
      answerFailure(call, { statusCode: 400, message: 'bad framing' }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('bad framing');
  });

  it('answers a step that threw as an internal error, logging the cause and never its message', async () => {
    const logged: object[] = [];
    const kit = edgeKit({ logger: { error: (o) => logged.push(o), warn: () => undefined, info: () => undefined } });
    const boom = new Error('secret detail');
    const res = await kit.step({ method: 'POST', url: '/t/acme/mcp' }, (call) => answerFailure(call, crashed(boom)));
    expect(res.statusCode).toBe(500);
    expect(res.json().error).toEqual({ code: -32603, message: 'Internal error' });
    expect(logged).toEqual([{ err: boom }]);
  });
});
