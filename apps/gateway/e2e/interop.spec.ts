/**
 * Real clients against a listening gateway (issue 2, item 6): the SDK 1.x `Client` over
 * Streamable HTTP (legacy era), the SDK v2 client pinned to 2026-07-28 (modern era,
 * `server/discover`), and the MCP Inspector CLI in both eras. The demo tenant serves its
 * in-process tools plus an SDK 1.x upstream; the conformance tenant serves resources and prompts.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SdkTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { REPO_ROOT, startGateway, type Json, type TestGateway } from './support/harness';
import { TestUpstream } from '@switchboard/testing';

const INSPECTOR = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

let gw: TestGateway;
let upstream: TestUpstream;
let home: string;

beforeAll(async () => {
  upstream = await TestUpstream.start({ stateful: false, name: 'calc-upstream' });
  gw = await startGateway({
    tenants: [
      {
        id: 'demo',
        name: 'Demo',
        catalogs: [
          { builtin: 'demo' },
          { upstream: { id: 'calc', url: upstream.url, headers: { authorization: 'Bearer upstream-secret' }, prefix: 'calc_' } },
        ],
      },
      { id: 'conformance', name: 'Conformance', catalogs: [{ builtin: 'conformance' }] },
    ],
    listen: true,
  });
  home = await mkdtemp(path.join(tmpdir(), 'sb-inspector-home-'));
});

afterAll(async () => {
  await gw?.close();
  await upstream?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

describe('SDK 1.x Client over StreamableHTTPClientTransport (legacy era)', () => {
  let client: SdkClient;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
  });

  test('initialize, list tools, call echo and an upstream tool', async () => {
    client = new SdkClient({ name: 'sdk1-interop', version: '1.0.0' });
    await client.connect(new SdkTransport(new URL(gw.mcpUrl('demo'))));
    expect(client.getServerVersion()?.name).toBeTruthy();
    expect(client.getServerCapabilities()?.tools).toBeDefined();

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'add_numbers', 'count_down', 'calc_shout']));

    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello sdk1' } });
    expect(echo.isError).toBeFalsy();
    expect(echo.structuredContent).toEqual({ text: 'hello sdk1' });

    const shout = await client.callTool({ name: 'calc_shout', arguments: { text: 'via upstream' } });
    expect(shout.isError).toBeFalsy();
    expect(textOf(shout)).toBe('VIA UPSTREAM (from calc-upstream)');
  });

  test('progress notifications reach the SDK client before the result', async () => {
    client = new SdkClient({ name: 'sdk1-interop', version: '1.0.0' });
    await client.connect(new SdkTransport(new URL(gw.mcpUrl('demo'))));
    const seen: number[] = [];
    // stepMs > 0: the tool awaits between steps, so a call aborted early would stop after step 1.
    const res = await client.callTool({ name: 'count_down', arguments: { from: 3, stepMs: 5 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(res.isError).toBeFalsy();
    expect(seen).toEqual([1, 2, 3]);
  });

  test('read a resource and get a prompt (conformance tenant)', async () => {
    client = new SdkClient({ name: 'sdk1-interop', version: '1.0.0' });
    await client.connect(new SdkTransport(new URL(gw.mcpUrl('conformance'))));
    const read = await client.readResource({ uri: 'test://static-text' });
    expect(read.contents[0]).toMatchObject({ uri: 'test://static-text' });
    expect((read.contents[0] as { text?: string }).text).toBeTruthy();

    const prompt = await client.getPrompt({ name: 'test_simple_prompt' });
    expect(prompt.messages.length).toBeGreaterThanOrEqual(1);
    expect(prompt.messages[0].role).toBeDefined();
  });

  test('read a resource and get a prompt routed to the upstream', async () => {
    client = new SdkClient({ name: 'sdk1-interop', version: '1.0.0' });
    await client.connect(new SdkTransport(new URL(gw.mcpUrl('demo'))));
    const read = await client.readResource({ uri: 'upstream://readme' });
    expect((read.contents[0] as { text?: string }).text).toBe('readme of calc-upstream');
    const prompt = await client.getPrompt({ name: 'calc_greet', arguments: { who: 'Ada' } });
    expect(JSON.stringify(prompt.messages)).toContain('Hello, Ada!');
  });
});

describe('SDK v2 client pinned to 2026-07-28 (modern era)', () => {
  let client: V2Client;

  afterEach(async () => {
    await client?.close().catch(() => undefined);
  });

  const connect = async (tenant: string): Promise<V2Client> => {
    client = new V2Client({ name: 'sdk2-interop', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new V2Transport(new URL(gw.mcpUrl(tenant))));
    return client;
  };

  test('discover, list tools, call a tool', async () => {
    await connect('demo');
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const discovered = await client.discover();
    expect(discovered.supportedVersions).toContain('2026-07-28');
    expect(discovered.capabilities.tools).toBeDefined();

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'calc_shout']));

    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello sdk2' } });
    expect(echo.isError).toBeFalsy();
    expect(echo.structuredContent).toEqual({ text: 'hello sdk2' });

    const shout = await client.callTool({ name: 'calc_shout', arguments: { text: 'modern' } });
    expect(textOf(shout)).toBe('MODERN (from calc-upstream)');
  });

  test("'auto' negotiation (probe with server/discover, as Claude does) settles on the modern era", async () => {
    client = new V2Client({ name: 'sdk2-auto', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new V2Transport(new URL(gw.mcpUrl('demo'))));
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getDiscoverResult()?.supportedVersions).toContain('2026-07-28');
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'auto' } });
    expect(echo.structuredContent).toEqual({ text: 'auto' });
  });

  test('read a resource and get a prompt (conformance tenant)', async () => {
    await connect('conformance');
    const read = await client.readResource({ uri: 'test://static-text' });
    expect(read.contents[0]).toMatchObject({ uri: 'test://static-text' });
    const prompt = await client.getPrompt({ name: 'test_simple_prompt' });
    expect(prompt.messages.length).toBeGreaterThanOrEqual(1);
  });

  test('read a resource and get a prompt routed to the upstream', async () => {
    await connect('demo');
    const read = await client.readResource({ uri: 'upstream://readme' });
    expect((read.contents[0] as { text?: string }).text).toBe('readme of calc-upstream');
    const prompt = await client.getPrompt({ name: 'calc_greet', arguments: { who: 'Grace' } });
    expect(JSON.stringify(prompt.messages)).toContain('Hello, Grace!');
  });
});

/** Runs the Inspector CLI (under this Node, hermetic HOME) and parses its one JSON object. */
function inspector(url: string, era: 'legacy' | 'modern', args: string[]): Promise<Json> {
  const argv = [INSPECTOR, '--cli', url, '--transport', 'http', '--protocol-era', era, '--format', 'json', '-q', ...args];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      argv,
      { env: { ...process.env, HOME: home, NO_UPDATE_NOTIFIER: '1', CI: '1' }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const out = stdout.trim();
        if (err)
          return reject(
            new Error(
              `inspector ${args.join(' ')} (${era}) failed: ${err.message}\nstdout: ${out.slice(0, 800)}\nstderr: ${stderr.slice(0, 800)}`,
            ),
          );
        try {
          resolve(JSON.parse(out) as Json);
        } catch {
          reject(new Error(`inspector printed no JSON: ${out.slice(0, 800)}\nstderr: ${stderr.slice(0, 800)}`));
        }
      },
    );
  });
}

/** Every Inspector invocation of the suite, keyed by era and label; started together (each is a Node process start-up). */
const INSPECTOR_CALLS: Record<string, { tenant: string; args: string[] }> = {
  list: { tenant: 'demo', args: ['--method', 'tools/list'] },
  echo: { tenant: 'demo', args: ['--method', 'tools/call', '--tool-name', 'echo', '--tool-arg', 'text=hi-inspector'] },
  read: { tenant: 'conformance', args: ['--method', 'resources/read', '--uri', 'test://static-text'] },
  prompt: { tenant: 'conformance', args: ['--method', 'prompts/get', '--prompt-name', 'test_simple_prompt'] },
  upstreamRead: { tenant: 'demo', args: ['--method', 'resources/read', '--uri', 'upstream://readme'] },
  upstreamPrompt: { tenant: 'demo', args: ['--method', 'prompts/get', '--prompt-name', 'calc_greet', '--prompt-args', 'who=Linus'] },
};

describe.each(['legacy', 'modern'] as const)('MCP Inspector CLI, --protocol-era %s', (era) => {
  const runs = new Map<string, Promise<Json>>();
  const run = (label: string): Promise<Json> => {
    const found = runs.get(label);
    if (!found) throw new Error(`no inspector run named ${label}`);
    return found;
  };

  beforeAll(() => {
    for (const [label, { tenant, args }] of Object.entries(INSPECTOR_CALLS)) {
      const promise = inspector(gw.mcpUrl(tenant), era, args);
      promise.catch(() => undefined); // reported by the test that awaits it
      runs.set(label, promise);
    }
  });

  afterAll(async () => {
    await Promise.allSettled(runs.values());
  });

  test('tools/list', async () => {
    const out = await run('list');
    const tools = (out.result as { tools: Array<{ name: string }> }).tools;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add_numbers', 'calc_shout']));
  });

  test('tools/call echo', async () => {
    const result = (await run('echo')).result as Json;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ text: 'hi-inspector' });
  });

  test('resources/read', async () => {
    const contents = ((await run('read')).result as { contents: Array<{ uri: string; text?: string }> }).contents;
    expect(contents[0].uri).toBe('test://static-text');
    expect(contents[0].text).toBeTruthy();
  });

  test('prompts/get', async () => {
    const messages = ((await run('prompt')).result as { messages: Array<{ role: string }> }).messages;
    expect(messages.length).toBeGreaterThanOrEqual(1);
    expect(messages[0].role).toBeDefined();
  });

  test('resources/read and prompts/get of the upstream through the gateway', async () => {
    expect(JSON.stringify((await run('upstreamRead')).result)).toContain('readme of calc-upstream');
    expect(JSON.stringify((await run('upstreamPrompt')).result)).toContain('Hello, Linus!');
  });
});
