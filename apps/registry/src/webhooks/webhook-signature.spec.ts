import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signWebhook } from './webhook-signature';

describe('signWebhook', () => {
  const body = JSON.stringify({ type: 'publish.done', timestamp: '2026-01-01T00:00:00Z', data: { tenant: 'acme' } });

  it('signs so the Standard Webhooks reference library verifies it', () => {
    const secret = newWebhookSecret();
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': signWebhook([secret], 'msg_1', ts, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    // The same bytes as the library's own signer.
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('msg_1', new Date(ts * 1000), body));
  });

  it('carries one signature per secret during a rotation, each verifying on its own', () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const ts = Math.floor(Date.now() / 1000);
    const signature = signWebhook([current, previous], 'msg_2', ts, body);
    expect(signature.split(' ')).toHaveLength(2);
    for (const s of [current, previous])
      expect(() =>
        new Webhook(s).verify(body, { 'webhook-id': 'msg_2', 'webhook-timestamp': String(ts), 'webhook-signature': signature }),
      ).not.toThrow();
    expect(() =>
      new Webhook(newWebhookSecret()).verify(body, {
        'webhook-id': 'msg_2',
        'webhook-timestamp': String(ts),
        'webhook-signature': signature,
      }),
    ).toThrow();
  });

  it('makes distinct whsec_ secrets of 24 bytes', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(a);
  });
});
