import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { K8sObject } from './render-kustomize';

interface IngressPath {
  path: string;
  pathType: 'Exact' | 'Prefix' | 'ImplementationSpecific';
  backend: { service: { name: string; port: { number: number } } };
}
interface IngressRule {
  host?: string;
  http: { paths: IngressPath[] };
}
export interface Backend {
  service: string;
  port: number;
}

function hostMatches(ruleHost: string | undefined, host: string): boolean {
  if (!ruleHost) return true;
  // A wildcard covers exactly one DNS label (Kubernetes Ingress semantics).
  if (ruleHost.startsWith('*.')) return host.endsWith(ruleHost.slice(1)) && !host.slice(0, -(ruleHost.length - 1)).includes('.');
  return ruleHost === host;
}

function pathMatches(p: IngressPath, path: string): boolean {
  if (p.pathType === 'Exact') return path === p.path;
  if (p.pathType === 'Prefix') {
    const prefix = p.path.replace(/\/+$/, '');
    return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
  }
  // ingress-nginx with use-regex: an anchored, case-insensitive regular expression prefix.
  return new RegExp(`^${p.path}`, 'i').test(path);
}

/**
 * The rendered Ingress as a routing function, with Kubernetes path semantics: the exact host
 * rule (else a one-label wildcard), then Exact before the longest matching path.
 */
export function ingressRouter(objects: K8sObject[]): { route(host: string, path: string): Backend | undefined; hosts: string[] } {
  const rules = objects.filter((o) => o.kind === 'Ingress').flatMap((o) => (o as unknown as { spec: { rules: IngressRule[] } }).spec.rules);
  return {
    hosts: rules.map((r) => r.host ?? '').filter(Boolean),
    route(host, path) {
      const h = host.toLowerCase().replace(/:\d+$/, '');
      const rule = rules.find((r) => r.host === h) ?? rules.find((r) => hostMatches(r.host, h));
      if (!rule) return undefined;
      const matches = rule.http.paths.filter((p) => pathMatches(p, path));
      matches.sort((a, b) => Number(b.pathType === 'Exact') - Number(a.pathType === 'Exact') || b.path.length - a.path.length);
      const hit = matches[0];
      return hit ? { service: hit.backend.service.name, port: hit.backend.service.port.number } : undefined;
    },
  };
}

/**
 * An HTTP front end standing in for the ingress controller: routes each request by Host and
 * path to the stand-in port of `service:port`, as a TLS-terminating proxy would (Host kept,
 * X-Forwarded-* set). Unrouted requests get 404, as from ingress-nginx's default backend.
 */
export async function startIngressProxy(
  router: ReturnType<typeof ingressRouter>,
  standIn: Record<string, number>,
): Promise<{ port: number; routed: Array<{ host: string; path: string; service: string }>; close(): Promise<void> }> {
  const routed: Array<{ host: string; path: string; service: string }> = [];
  const server = http.createServer((req, res) => {
    const host = req.headers.host ?? '';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const backend = router.route(host, path);
    const port = backend ? standIn[`${backend.service}:${backend.port}`] : undefined;
    if (!backend || port === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain', 'x-ingress': 'default-backend' }).end('default backend - 404');
      return;
    }
    routed.push({ host, path, service: backend.service });
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.url,
        headers: {
          ...req.headers,
          'x-forwarded-for': req.socket.remoteAddress ?? '',
          'x-forwarded-host': host,
          'x-forwarded-proto': 'http',
        },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { ...up.headers, 'x-ingress-backend': backend.service });
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('bad gateway');
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
