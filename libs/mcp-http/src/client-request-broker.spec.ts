import { randomBytes } from 'node:crypto';
import { ClientRequestBroker, type ClientAnswerRelay } from './client-request-broker';
import { StateSealer } from './state-sealer';

describe('ClientRequestBroker', () => {
  const key = randomBytes(32);

  it('delivers an answer to the waiter on the same replica, once', async () => {
    const broker = new ClientRequestBroker(new StateSealer([key]));
    const pending = broker.open('acme\nalice');
    expect(await broker.deliver('acme\nalice', pending.id, { result: { action: 'accept' } })).toBe('delivered');
    await expect(pending.answer).resolves.toEqual({ result: { action: 'accept' } });
    expect(await broker.deliver('acme\nalice', pending.id, { result: {} })).toBe('unknown');
    expect(broker.waiting).toBe(0);
  });

  it('refuses an answer from another tenant or subject, and ids it did not mint', async () => {
    const broker = new ClientRequestBroker(new StateSealer([key]));
    const pending = broker.open('acme\nalice');
    expect(await broker.deliver('globex\nalice', pending.id, { result: {} })).toBe('foreign');
    expect(await broker.deliver('acme\nmallory', pending.id, { result: {} })).toBe('foreign');
    expect(await broker.deliver('acme\nalice', 42, { result: {} })).toBe('unknown');
    expect(await broker.deliver('acme\nalice', `${pending.id}x`, { result: {} })).toBe('unknown');
    expect(await new ClientRequestBroker(StateSealer.ephemeral()).deliver('acme\nalice', pending.id, { result: {} })).toBe('unknown');
    expect(broker.waiting).toBe(1);
  });

  it('says an id past its exp has expired', async () => {
    const sealer = new StateSealer([key]);
    const broker = new ClientRequestBroker(sealer, { replicaId: 'a' });
    const expired = sealer.seal('client-request', { r: 'a', n: 'nonce', s: 'x' }, -1);
    expect(await broker.deliver('acme\nalice', expired, { result: {} })).toBe('expired');
  });

  it('forwards an answer minted by another replica through the relay', async () => {
    const sealer = new StateSealer([key]);
    const replicas = new Map<string, ClientRequestBroker>();
    const relay: ClientAnswerRelay = { forward: async (replica, nonce, answer) => replicas.get(replica)?.receive(nonce, answer) ?? false };
    const a = new ClientRequestBroker(sealer, { replicaId: 'a', relay });
    replicas.set('a', a);
    const b = new ClientRequestBroker(sealer, { replicaId: 'b', relay });
    const pending = a.open('t\n');
    expect(await b.deliver('t\n', pending.id, { error: { code: -1, message: 'declined' } })).toBe('delivered');
    await expect(pending.answer).resolves.toEqual({ error: { code: -1, message: 'declined' } });
  });

  it('a cancelled request takes no answer, and the number waiting is bounded', async () => {
    const broker = new ClientRequestBroker(StateSealer.ephemeral(), { maxPending: 1 });
    const first = broker.open('t\n');
    expect(() => broker.open('t\n')).toThrow(/too many/);
    first.cancel();
    expect(await broker.deliver('t\n', first.id, { result: {} })).toBe('unknown');
    expect(() => broker.open('t\n').cancel()).not.toThrow();
  });
});
