import { buildDiscoverResult, buildInitializeResult, modernResultFields } from './results';
import type { ServerInfo } from './server-info';

const FULL_INFO: ServerInfo = {
  name: 'switchboard',
  version: '1.2.3',
  title: 'Switchboard',
  description: 'Hosted MCP',
  websiteUrl: 'https://example.com',
  icons: [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] }],
};
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

describe('modernResultFields', () => {
  it('stamps resultType complete and the serverInfo _meta key', () => {
    expect(modernResultFields({ name: 's', version: '1' })).toEqual({
      resultType: 'complete',
      _meta: { [SERVER_INFO_KEY]: { name: 's', version: '1' } },
    });
  });

  it('carries every Implementation field the modern era knows', () => {
    expect(modernResultFields(FULL_INFO)._meta[SERVER_INFO_KEY]).toEqual(FULL_INFO);
  });

  it('returns fresh objects each time so callers may add _meta keys', () => {
    const a = modernResultFields(FULL_INFO);
    a._meta['x'] = 1;
    expect(modernResultFields(FULL_INFO)._meta).not.toHaveProperty('x');
  });
});

describe('buildInitializeResult', () => {
  const capabilities = { tools: { listChanged: true }, completions: {}, tasks: { list: {} } };

  it('2024-11-05: name and version only, no instructions, no completions or tasks capability', () => {
    expect(buildInitializeResult({ protocolVersion: '2024-11-05', capabilities, serverInfo: FULL_INFO, instructions: 'Use me' })).toEqual({
      protocolVersion: '2024-11-05',
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 'switchboard', version: '1.2.3' },
    });
  });

  it('2025-03-26: adds instructions and the completions capability', () => {
    expect(buildInitializeResult({ protocolVersion: '2025-03-26', capabilities, serverInfo: FULL_INFO, instructions: 'Use me' })).toEqual({
      protocolVersion: '2025-03-26',
      capabilities: { tools: { listChanged: true }, completions: {} },
      serverInfo: { name: 'switchboard', version: '1.2.3' },
      instructions: 'Use me',
    });
  });

  it('2025-06-18: adds title to serverInfo', () => {
    expect(buildInitializeResult({ protocolVersion: '2025-06-18', capabilities, serverInfo: FULL_INFO }).serverInfo).toEqual({
      name: 'switchboard',
      version: '1.2.3',
      title: 'Switchboard',
    });
  });

  it('2025-11-25: adds description, websiteUrl, icons and the tasks capability', () => {
    const result = buildInitializeResult({ protocolVersion: '2025-11-25', capabilities, serverInfo: FULL_INFO, instructions: 'Use me' });
    expect(result.serverInfo).toEqual(FULL_INFO);
    expect(result.capabilities).toEqual(capabilities);
    expect(result.instructions).toBe('Use me');
  });

  it('leaves out instructions when there are none', () => {
    expect(buildInitializeResult({ protocolVersion: '2025-11-25', capabilities: {}, serverInfo: FULL_INFO })).not.toHaveProperty(
      'instructions',
    );
  });

  it('does not mutate the capabilities passed in', () => {
    const caps = { tools: {}, tasks: {} };
    buildInitializeResult({ protocolVersion: '2024-11-05', capabilities: caps, serverInfo: FULL_INFO });
    expect(caps).toEqual({ tools: {}, tasks: {} });
  });
});

describe('buildDiscoverResult', () => {
  it('has exactly the DiscoverResult fields the conformance schema and SDK v2 expect', () => {
    const result = buildDiscoverResult({
      capabilities: { tools: { listChanged: false }, tasks: {} },
      serverInfo: FULL_INFO,
      instructions: 'Use me',
      ttlMs: 60_000,
      cacheScope: 'public',
    });
    expect(result).toEqual({
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: { listChanged: false } },
      instructions: 'Use me',
      ttlMs: 60_000,
      cacheScope: 'public',
      _meta: { [SERVER_INFO_KEY]: FULL_INFO },
    });
    expect(result).not.toHaveProperty('serverInfo');
  });

  it('leaves out absent instructions', () => {
    expect(buildDiscoverResult({ capabilities: {}, serverInfo: FULL_INFO, ttlMs: 0, cacheScope: 'private' })).not.toHaveProperty(
      'instructions',
    );
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects ttlMs %p', (ttlMs) => {
    expect(() => buildDiscoverResult({ capabilities: {}, serverInfo: FULL_INFO, ttlMs, cacheScope: 'private' })).toThrow(/ttlMs/);
  });
});
