import type { ComponentChildren } from 'preact';

/**
 * Why clients on the internet (claude.ai, ChatGPT) cannot reach `url`, or undefined when its host
 * is public as far as its name says: loopback, private, link-local and unique-local addresses and
 * names that only resolve on a local network. DNS is not consulted (the browser cannot), so a
 * public name pointing at a private address passes; the Readiness check then fails it.
 */
export function unreachableReason(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is this machine (loopback)`;
  if (/\.(local|internal|lan|home\.arpa)$/.test(host) || (!host.includes('.') && !host.includes(':')))
    return `${host} is a local-network name`;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    if (a === 127) return `${host} is a loopback address`;
    if (a === 0) return `${host} is not a routable address`;
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127))
      return `${host} is a private address`;
    if (a === 169 && b === 254) return `${host} is a link-local address`;
    return undefined;
  }
  if (host === '::1' || host === '::') return `${host} is a loopback address`;
  if (/^f[cd][0-9a-f]{2}:/.test(host)) return `${host} is a private (unique-local) address`;
  if (/^fe[89ab][0-9a-f]:/.test(host)) return `${host} is a link-local address`;
  const mapped = /^::ffff:(.+)$/.exec(host);
  if (mapped) return unreachableReason(`http://${mapped[1]}/`);
  return undefined;
}

/**
 * The blocker shown wherever a tenant is about to hand its MCP URL to a hosted client: when the
 * URL cannot be reached from the internet, the claude.ai / ChatGPT steps cannot work.
 */
export function ReachabilityBanner({ url, children }: { url: string; children?: ComponentChildren }) {
  const why = unreachableReason(url);
  if (!why) return null;
  return (
    <div class="blocker" role="alert" data-testid="reachability-banner">
      <strong>claude.ai and ChatGPT cannot reach this endpoint.</strong> Your MCP URL <span class="mono">{url}</span> is not reachable from
      the internet: {why}. Clients running on this machine (Claude Code, the MCP Inspector) can still use it. To connect a hosted client,
      serve the gateway at a public HTTPS address (the operator sets <span class="mono">GATEWAY_PUBLIC_URL</span>), or expose it through a
      tunnel.
      {children}
    </div>
  );
}
