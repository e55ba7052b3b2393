import { mintLegacySession, readLegacySession } from './legacy-session';
import { StateSealer } from './state-sealer';

describe('legacy sessions', () => {
  const sealer = StateSealer.ephemeral();

  it('round-trips the tenant, version and the capabilities that matter, as visible ASCII', () => {
    const id = mintLegacySession(sealer, {
      tenantId: 'acme',
      protocolVersion: '2025-06-18',
      capabilities: { elicitation: {}, sampling: {}, experimental: { x: 1 } },
    });
    expect(id).toMatch(/^[\x21-\x7e]+$/);
    expect(readLegacySession(sealer, 'acme', id)).toEqual({
      tenantId: 'acme',
      protocolVersion: '2025-06-18',
      capabilities: { elicitation: {}, sampling: {} },
    });
  });

  it('keeps the MCP Apps declaration as a bare marker, and not one for another UI type', () => {
    const ui = 'io.modelcontextprotocol/ui';
    const declared = mintLegacySession(sealer, {
      tenantId: 'acme',
      protocolVersion: '2025-11-25',
      capabilities: { extensions: { [ui]: { mimeTypes: ['text/html;profile=mcp-app'] }, 'x.example/other': { big: 'y'.repeat(500) } } },
    });
    expect(readLegacySession(sealer, 'acme', declared)).toMatchObject({ capabilities: { extensions: { [ui]: {} } } });
    const other = mintLegacySession(sealer, {
      tenantId: 'acme',
      protocolVersion: '2025-11-25',
      capabilities: { extensions: { [ui]: { mimeTypes: ['text/uri-list'] } } },
    });
    expect(readLegacySession(sealer, 'acme', other)).toMatchObject({ capabilities: {} });
  });

  it('is refused for another tenant, when altered, and from another key', () => {
    const id = mintLegacySession(sealer, { tenantId: 'acme', protocolVersion: '2025-06-18', capabilities: {} });
    expect(readLegacySession(sealer, 'globex', id)).toBe('invalid');
    expect(readLegacySession(sealer, 'acme', `${id}x`)).toBe('invalid');
    expect(readLegacySession(StateSealer.ephemeral(), 'acme', id)).toBe('invalid');
  });

  it('is refused as expired past its exp', () => {
    const id = sealer.seal('session', { t: 'acme', v: '2025-06-18', c: {} }, -1);
    expect(readLegacySession(sealer, 'acme', id)).toBe('expired');
  });

  it('keeps a huge capability value as declared-without-details, so the id stays small', () => {
    const id = mintLegacySession(sealer, {
      tenantId: 'a',
      protocolVersion: '2025-11-25',
      capabilities: { roots: { junk: 'x'.repeat(100_000) } },
    });
    expect(id.length).toBeLessThan(300);
    expect((readLegacySession(sealer, 'a', id) as { capabilities: unknown }).capabilities).toEqual({ roots: {} });
  });
});
