import type { IncomingMessage, ServerResponse } from 'node:http';
import { CompiledCatalog, Tool, snapshotFromBundle, type LocalBundle, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { surfaceProfiles } from '@switchboard/protocol';
import lightInject, { type InjectOptions, type Response } from 'light-my-request';
import { EdgeCall } from '../edge-call';
import type { EdgePolicy } from '../edge-policy';
import { McpEndpoint, type McpEndpointOptions } from '../mcp-endpoint';
import type { McpRefusal } from '../mcp-observer';
import type { McpTarget } from '../mcp-target';

/** Echoes its `text`; `log: true` logs first (so the answer becomes a stream), `waitMs` waits first. */
class EchoTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'echo',
    description: 'Echoes text.',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, waitMs: { type: 'number' }, log: { type: 'boolean' } },
      required: ['text'],
    },
  };
  static override async payload(args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
    if (typeof args.waitMs === 'number') {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, args.waitMs as number);
        ctx.signal.addEventListener('abort', () => (clearTimeout(timer), reject(ctx.signal.reason as Error)), { once: true });
      });
    }
    if (args.log === true) ctx.log('info', 'echoing');
    return String(args.text);
  }
}

export const bundle: LocalBundle = { id: 'kit', server: { name: 'kit', version: '1' }, tools: [EchoTool] };
const surfaces = surfaceProfiles();

/** A tenant serving the echo tool. */
export function kitTarget(tenantId = 'acme', overrides: Partial<McpTarget> = {}): McpTarget {
  return {
    tenantId,
    catalog: CompiledCatalog.build(snapshotFromBundle(tenantId, bundle), { surfaces }),
    surfaces,
    allowedOrigins: [],
    allowedHosts: [],
    ...overrides,
  };
}

export const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } as const;
export const LEGACY = '2025-11-25';

/** A JSON-RPC request body. */
export function rpc(method: string, params: Record<string, unknown> = {}, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

export interface Kit {
  endpoint: McpEndpoint;
  refusals: McpRefusal[];
  /** A request to the endpoint as a node:http server would hand it over; a path it declines is 599. */
  inject(options: InjectOptions): Promise<Response>;
  /** Runs `step` on an EdgeCall for a request to `/t/<tenant>/mcp`, as the endpoint would. */
  step(options: InjectOptions, step: (call: EdgeCall) => void | Promise<void>, tenant?: string): Promise<Response>;
}

export type KitOptions = Omit<Partial<McpEndpointOptions>, 'policy'> & { targets?: McpTarget[]; policy?: Partial<EdgePolicy> };

/** An endpoint over `targets` (by tenant id) with `policy` overrides; refusals are collected. */
export function edgeKit(options: KitOptions = {}): Kit {
  const targets = new Map((options.targets ?? [kitTarget()]).map((t) => [t.tenantId, t]));
  const refusals: McpRefusal[] = [];
  const endpoint = new McpEndpoint({
    bundles: [bundle],
    logger: { error: () => undefined, warn: () => undefined, info: () => undefined },
    ...options,
    policy: {
      resolveTarget: (tenant) => (tenant === undefined ? targets.values().next().value : targets.get(tenant)),
      observe: { onRequest: () => NO_OBSERVATION, onRefusal: (r) => refusals.push(r) },
      ...options.policy,
    },
  });
  const declined = (res: ServerResponse) => {
    res.statusCode = 599;
    res.end('declined');
  };
  return {
    endpoint,
    refusals,
    inject: (o) => lightInject((req: IncomingMessage, res: ServerResponse) => void (endpoint.serve(req, res) || declined(res)), o),
    step: (o, step, tenant = 'acme') =>
      lightInject((req: IncomingMessage, res: ServerResponse) => {
        const call = new EdgeCall(endpoint.edge, req, res, tenant, '/t/:tenant/mcp');
        void Promise.resolve(step(call)).finally(() => {
          if (!res.headersSent) declined(res);
        });
      }, o),
  };
}

const NO_OBSERVATION = {
  classified: () => undefined,
  toolFailed: () => undefined,
  run: <T>(fn: () => Promise<T>) => fn(),
  end: () => undefined,
};
