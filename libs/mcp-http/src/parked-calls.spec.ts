import { randomBytes } from 'node:crypto';
import { McpError } from '@switchboard/protocol';
import { MAX_UPSTREAM_STATE_CHARS, ParkedCalls, type ParkRelay } from './parked-calls';
import { StateSealer } from './state-sealer';

type Input = {
  resultType: string;
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState: string;
};

/** A call that asks `method` once per name in `rounds`, then answers with every answer it got. */
function asking(rounds: string[]) {
  return async (ask: (m: string, p: Record<string, unknown>) => Promise<unknown>) => {
    const got: unknown[] = [];
    for (const message of rounds) got.push(await ask('elicitation/create', { message }));
    return { content: [{ type: 'text', text: JSON.stringify(got) }] };
  };
}

describe('ParkedCalls', () => {
  const key = randomBytes(32);

  it('returns the result directly when the call never asks, and parks nothing', async () => {
    const parks = new ParkedCalls(new StateSealer([key]));
    await expect(parks.start('acme', 'acme\n', 'tool', async () => ({ content: [] }))).resolves.toEqual({ content: [] });
    expect(parks.parked).toBe(0);
  });

  it('turns asks into input_required rounds and resumes the call with the answers, each round once', async () => {
    const parks = new ParkedCalls(new StateSealer([key]));
    const first = (await parks.start('acme', 'acme\n', 'tool', asking(['one', 'two']))) as Input;
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: { q0: { method: 'elicitation/create', params: { message: 'one' } } },
    });
    const second = (await parks.resume('acme\n', 'tool', first.requestState, { q0: 'A' })) as Input;
    expect(second.inputRequests.q0!.params.message).toBe('two');
    await expect(parks.resume('acme\n', 'tool', first.requestState, { q0: 'A' })).rejects.toThrow(/already answered/);
    const done = await parks.resume('acme\n', 'tool', second.requestState, { q0: 'B' });
    expect(done).toEqual({ content: [{ type: 'text', text: '["A","B"]' }] });
    await expect(parks.resume('acme\n', 'tool', second.requestState, { q0: 'B' })).rejects.toBeInstanceOf(McpError);
  });

  it('refuses a state from another caller or tool, and ignores states that are not parks', async () => {
    const sealer = new StateSealer([key]);
    const parks = new ParkedCalls(sealer);
    const first = (await parks.start('acme', 'acme\nalice', 'tool', asking(['one']))) as Input;
    await expect(parks.resume('acme\nbob', 'tool', first.requestState, {})).rejects.toThrow(/another caller or tool/);
    await expect(parks.resume('acme\nalice', 'other', first.requestState, {})).rejects.toThrow(/another caller or tool/);
    await expect(parks.resume('acme\nalice', 'tool', sealer.seal('request-state', { step: 1 }), {})).resolves.toBeUndefined();
    await expect(parks.resume('acme\nalice', 'tool', 'forged.state', {})).resolves.toBeUndefined();
    await parks.resume('acme\nalice', 'tool', first.requestState, { q0: 'x' });
  });

  it('bounds the calls one tenant may park: the next ask fails and that call ends as a tool error', async () => {
    const parks = new ParkedCalls(new StateSealer([key]), { maxPerTenant: 2 });
    const run = async (ask: (m: string, p: Record<string, unknown>) => Promise<unknown>) => {
      try {
        return { content: [{ type: 'text', text: String(await ask('elicitation/create', {})) }] };
      } catch (err) {
        return { isError: true, content: [{ type: 'text', text: (err as Error).message }] };
      }
    };
    await parks.start('acme', 'acme\n', 't', run);
    await parks.start('acme', 'acme\n', 't', run);
    await expect(parks.start('acme', 'acme\n', 't', run)).resolves.toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('limit 2') }],
    });
    // Another tenant is not affected.
    await expect(parks.start('globex', 'globex\n', 't', run)).resolves.toMatchObject({ resultType: 'input_required' });
    expect(parks.parked).toBe(3);
  });
});

describe('ParkedCalls waits, relays and upstream state', () => {
  const key = randomBytes(32);

  it("fails the call's question when no retry comes within the wait, and hands the outcome to a late retry", async () => {
    const parks = new ParkedCalls(new StateSealer([key]), { waitMs: 20 });
    let failed = false;
    const first = (await parks.start('acme', 'acme\n', 'tool', async (ask) => {
      try {
        return { content: [{ type: 'text', text: String(await ask('elicitation/create', {})) }] };
      } catch (err) {
        failed = true;
        return { isError: true, content: [{ type: 'text', text: (err as Error).message }] };
      }
    })) as Input;
    const deadline = Date.now() + 5_000;
    while (!failed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const outcome = await parks.resume('acme\n', 'tool', first.requestState, { q0: 'late' });
    expect(outcome).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('did not answer elicitation/create within 20 ms') }],
    });
  });

  it("routes another replica's state through the relay, and says so when no replica holds it", async () => {
    const sealer = new StateSealer([key]);
    const holder = new ParkedCalls(sealer, { replicaId: 'a' });
    const relay: ParkRelay = { resume: async (replica, message) => (replica === 'a' ? holder.resumeLocal(message) : undefined) };
    const other = new ParkedCalls(sealer, { replicaId: 'b', relay });
    const first = (await holder.start('acme', 'acme\n', 'tool', asking(['one']))) as Input;
    await expect(other.resume('acme\n', 'tool', first.requestState, { q0: 'via-b' })).resolves.toEqual({
      content: [{ type: 'text', text: '["via-b"]' }],
    });
    const lost = (await new ParkedCalls(sealer, { replicaId: 'gone' }).start('acme', 'acme\n', 'tool', asking(['x']))) as Input;
    await expect(other.resume('acme\n', 'tool', lost.requestState, {})).resolves.toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('replica') }],
    });
  });

  it("seals an upstream's own requestState for one caller and tool, and bounds its size", () => {
    const parks = new ParkedCalls(new StateSealer([key]));
    const sealed = parks.sealUpstreamState('acme\nalice', 'order', 'upstream-opaque');
    expect(parks.openUpstreamState('acme\nalice', 'order', sealed)).toBe('upstream-opaque');
    expect(() => parks.openUpstreamState('acme\nbob', 'order', sealed)).toThrow(/another caller or tool/);
    expect(() => parks.openUpstreamState('acme\nalice', 'refund', sealed)).toThrow(/another caller or tool/);
    expect(() => parks.openUpstreamState('acme\nalice', 'order', 'raw-upstream-state')).toThrow(/params.requestState was not issued/);
    expect(() => new ParkedCalls(StateSealer.ephemeral()).openUpstreamState('acme\nalice', 'order', sealed)).toThrow(McpError);
    expect(() => parks.sealUpstreamState('acme\n', 'order', 'x'.repeat(MAX_UPSTREAM_STATE_CHARS + 1))).toThrow(/at most 4096/);
  });
});

describe('ParkedCalls outcomes and legs', () => {
  const key = randomBytes(32);

  it('hands a JSON-RPC error the call ended with to the client as that error, first request or retry', async () => {
    const parks = new ParkedCalls(new StateSealer([key]));
    const urlRequired = new McpError(-32042, 'This request requires browser-based authorization.', {
      elicitations: [{ mode: 'url', url: 'https://example.com' }],
    });
    await expect(parks.start('acme', 'acme\n', 'tool', async () => Promise.reject(urlRequired))).rejects.toMatchObject({
      code: -32042,
      data: urlRequired.data,
    });
    const first = (await parks.start('acme', 'acme\n', 'tool', async (ask) => {
      await ask('elicitation/create', {});
      throw urlRequired;
    })) as Input;
    await expect(parks.resume('acme\n', 'tool', first.requestState, { q0: {} })).rejects.toMatchObject({ code: -32042 });
    // Any other failure stays a tool error.
    await expect(parks.start('acme', 'acme\n', 'tool', async () => Promise.reject(new Error('boom')))).resolves.toMatchObject({
      isError: true,
    });
  });

  it('points the call at the retry the client waits on, with no leg between a round and its retry', async () => {
    const parks = new ParkedCalls(new StateSealer([key]));
    const seen: unknown[] = [];
    const first = (await parks.start(
      'acme',
      'acme\n',
      'tool',
      async (ask, _signal, legs) => {
        legs.onNext(() => seen.push(`next:${String(legs.current())}`));
        seen.push(legs.current());
        await ask('elicitation/create', {});
        seen.push(legs.current());
        return { content: [] };
      },
      'leg-1',
    )) as Input;
    await new Promise((resolve) => setImmediate(resolve));
    await expect(parks.resume('acme\n', 'tool', first.requestState, { q0: {} }, 'leg-2')).resolves.toEqual({ content: [] });
    expect(seen).toEqual(['leg-1', 'next:leg-2', 'leg-2']);
  });
});
