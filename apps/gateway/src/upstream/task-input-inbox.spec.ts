import { McpError } from '@switchboard/protocol';
import { inboxOwner, MAX_TASK_ANSWER_BYTES, MAX_TASK_INPUT_BYTES, TaskInputInbox } from './task-input-inbox';

const alice = inboxOwner('acme', 'srv', 'alice-scope', 'sess-1');
const bob = inboxOwner('acme', 'srv', 'bob-scope', 'sess-1');
const form = { mode: 'form', message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };

describe('TaskInputInbox', () => {
  it('holds a request for its owner only, and passes the answer to the upstream', async () => {
    const inbox = new TaskInputInbox();
    const asked = inbox.ask(alice, 'elicitation/create', form);
    const pending = inbox.pending(alice);
    const keys = Object.keys(pending);
    expect(keys).toHaveLength(1);
    expect(pending[keys[0]!]).toEqual({ method: 'elicitation/create', params: form });
    expect(inbox.pending(bob)).toEqual({});
    // Another caller's answer under the same key is not taken.
    await expect(inbox.answer(bob, { [keys[0]!]: { action: 'decline' } })).resolves.toEqual([]);
    // Keys not outstanding are ignored.
    await expect(
      inbox.answer(alice, { [keys[0]!]: { action: 'accept', content: { name: 'Ada' } }, nope: { action: 'decline' } }),
    ).resolves.toEqual(keys);
    await expect(asked).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(inbox.pending(alice)).toEqual({});
    expect(inbox.count()).toBe(0);
  });

  it('refuses a request past the per-session count and the size bound', async () => {
    const inbox = new TaskInputInbox(60_000, 2);
    const held = [inbox.ask(alice, 'roots/list', {}), inbox.ask(alice, 'roots/list', {})];
    await expect(inbox.ask(alice, 'roots/list', {})).rejects.toThrow('already holds 2 unanswered requests');
    // Another session of the caller has its own bound.
    const other = inbox.ask(bob, 'roots/list', {});
    await expect(inbox.ask(bob, 'elicitation/create', { message: 'x'.repeat(MAX_TASK_INPUT_BYTES) })).rejects.toThrow(
      `larger than the ${MAX_TASK_INPUT_BYTES} bytes`,
    );
    inbox.close();
    await expect(Promise.all([...held, other])).rejects.toThrow('shut down before the client answered');
    expect(inbox.count()).toBe(0);
  });

  it('refuses an answer that is not an object or too large, naming the field, and keeps the request', async () => {
    const inbox = new TaskInputInbox();
    const asked = inbox.ask(alice, 'elicitation/create', form);
    const [key] = Object.keys(inbox.pending(alice));
    await expect(inbox.answer(alice, { [key!]: 'yes' })).rejects.toThrow(`params.inputResponses.${key} must be an object`);
    await expect(
      inbox.answer(alice, { [key!]: { action: 'accept', content: { name: 'x'.repeat(MAX_TASK_ANSWER_BYTES) } } }),
    ).rejects.toThrow(McpError);
    expect(Object.keys(inbox.pending(alice))).toEqual([key]);
    await inbox.answer(alice, { [key!]: { action: 'cancel' } });
    await expect(asked).resolves.toEqual({ action: 'cancel' });
  });

  it('ends the requests of a session whose connection closed, and only those', async () => {
    const inbox = new TaskInputInbox();
    const gone = inbox.ask(alice, 'elicitation/create', form);
    const kept = inbox.ask(bob, 'elicitation/create', form);
    inbox.forget(alice);
    await expect(gone).rejects.toThrow("closed this session's connection");
    expect(inbox.pending(alice)).toEqual({});
    expect(Object.keys(inbox.pending(bob))).toHaveLength(1);
    await inbox.answer(bob, Object.fromEntries(Object.keys(inbox.pending(bob)).map((k) => [k, { action: 'decline' }])));
    await expect(kept).resolves.toEqual({ action: 'decline' });
  });

  it('refuses a request nobody answers within the wait, and forgets it', async () => {
    const inbox = new TaskInputInbox(50);
    const started = Date.now();
    await expect(inbox.ask(alice, 'sampling/createMessage', { messages: [] })).rejects.toThrow('did not answer within 50 ms');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(inbox.pending(alice)).toEqual({});
    expect(inbox.count()).toBe(0);
  });
});
