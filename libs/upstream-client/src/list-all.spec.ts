import type { UpstreamConnection, UpstreamListMethod } from './upstream-connection';
import { listAll, MAX_LIST_PAGES } from './list-all';

type Pager = (method: UpstreamListMethod, cursor: string | undefined) => { items: Array<Record<string, unknown>>; nextCursor?: string };

/** A connection whose lists page as `pager` says, counting the pages asked for. */
function fake(pager: Pager, capabilities: UpstreamConnection['capabilities'] = { tools: {} }) {
  const asked: Array<[UpstreamListMethod, string | undefined]> = [];
  const conn = {
    capabilities,
    listPage: async (method: UpstreamListMethod, cursor: string | undefined) => {
      asked.push([method, cursor]);
      return pager(method, cursor);
    },
  };
  return { conn, asked };
}

const opts = { timeout: 1_000 };

describe('listAll', () => {
  it('follows every cursor to the last page', async () => {
    const { conn } = fake((_m, c) => {
      const n = c === undefined ? 0 : Number(c);
      return { items: [{ name: `t${n}` }], ...(n < 2 ? { nextCursor: String(n + 1) } : {}) };
    });
    expect(await listAll(conn, opts)).toEqual({
      tools: [{ name: 't0' }, { name: 't1' }, { name: 't2' }],
      resources: [],
      resourceTemplates: [],
      prompts: [],
      truncated: [],
    });
  });

  it('stops a list whose server hands out a cursor it handed out before (loop guard)', async () => {
    // a → b → a → … forever.
    const { conn, asked } = fake((_m, c) => ({ items: [{ name: c ?? 'first' }], nextCursor: c === 'a' ? 'b' : 'a' }));
    const out = await listAll(conn, opts);
    expect(asked.map(([, c]) => c)).toEqual([undefined, 'a', 'b']);
    expect(out.tools).toHaveLength(3);
    expect(out.truncated).toEqual([]);
  });

  it('stops at the page cap with fresh cursors forever, and says which list it cut', async () => {
    let n = 0;
    const { conn, asked } = fake(() => ({ items: [{ name: `t${n}` }], nextCursor: `c${n++}` }), { tools: {}, prompts: {} });
    const out = await listAll(conn, opts);
    expect(asked.filter(([m]) => m === 'tools/list')).toHaveLength(MAX_LIST_PAGES);
    expect(asked.filter(([m]) => m === 'prompts/list')).toHaveLength(MAX_LIST_PAGES);
    expect(out.truncated).toEqual(['tools/list', 'prompts/list']);
    const small = fake(() => ({ items: [], nextCursor: `c${n++}` }));
    expect((await listAll(small.conn, { ...opts, maxPages: 3 })).truncated).toEqual(['tools/list']);
    expect(small.asked).toHaveLength(3);
  });

  it('lists only what the capabilities announce; a server without templates/list has none', async () => {
    const { conn, asked } = fake(
      (m) => {
        if (m === 'resources/templates/list') throw Object.assign(new Error('Method not found'), { code: -32601 });
        return { items: [{ uri: 'file:///a' }] };
      },
      { resources: {} },
    );
    expect(await listAll(conn, opts)).toMatchObject({ tools: [], resources: [{ uri: 'file:///a' }], resourceTemplates: [], prompts: [] });
    expect(asked.map(([m]) => m)).toEqual(['resources/list', 'resources/templates/list']);
  });

  it('a templates/list that fails other than by a JSON-RPC answer fails the run', async () => {
    const { conn } = fake(
      (m) => {
        if (m === 'resources/templates/list') throw Object.assign(new Error('Request timed out'), { code: -32001 });
        return { items: [] };
      },
      { resources: {} },
    );
    await expect(listAll(conn, opts)).rejects.toThrow('Request timed out');
  });
});
