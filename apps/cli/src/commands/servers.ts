import type { CreateServerBody, Server, ServerAuthInput } from '../api/api-types';
import { usageError } from '../exit-codes';
import { fields, table } from '../output';
import { waitForDiscovery } from '../tenant-file/wait-for-discovery';
import { str, type Command, type CommandContext } from './command';

/** Reads a secret for `servers add` from the environment: secrets never go on a command line (shell history, `ps`). */
function secretFromEnv(ctx: CommandContext, flag: string): string {
  const name = str(ctx.flags, flag);
  if (!name) throw usageError(`--${flag}: name the environment variable that holds the secret`, flag);
  const value = ctx.io.env[name];
  if (!value) throw usageError(`--${flag}: environment variable ${name} is not set`, flag);
  return value;
}

function authInput(ctx: CommandContext): ServerAuthInput | undefined {
  const mode = str(ctx.flags, 'auth') ?? 'none';
  if (mode === 'none') return undefined;
  if (mode === 'bearer') return { mode, token: secretFromEnv(ctx, 'secret-env') };
  if (mode === 'header') {
    const header = str(ctx.flags, 'header');
    if (!header) throw usageError('--header: the header name is required with --auth header', 'header');
    return { mode, header, value: secretFromEnv(ctx, 'secret-env') };
  }
  if (mode === 'oauth_user') return { mode };
  throw usageError(`--auth: "${mode}" is not one of none, bearer, header, oauth_user (client credentials: use a tenant file)`, 'auth');
}

function int(ctx: CommandContext, flag: string): number | undefined {
  const raw = str(ctx.flags, flag);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw usageError(`--${flag}: "${raw}" is not a positive integer`, flag);
  return n;
}

const serverLine = (s: Server) => [s.id, s.name, s.health, s.discovery?.state ?? null, s.url];

const add: Command = {
  name: 'servers add',
  summary: 'Register an upstream MCP server and start its discovery',
  args: '<id>',
  positionals: { min: 1, max: 1 },
  details: ['Secrets are read from the environment variable named by --secret-env, never from the command line.'],
  options: {
    url: { type: 'string', value: '<url>', description: "the server's MCP endpoint (required)" },
    name: { type: 'string', value: '<name>', description: 'display name (default: the id)' },
    transport: { type: 'string', value: '<t>', description: 'auto | streamable-http | sse (default auto)' },
    auth: { type: 'string', value: '<mode>', description: 'none | bearer | header | oauth_user (default none)' },
    header: { type: 'string', value: '<name>', description: 'header name for --auth header' },
    'secret-env': { type: 'string', value: '<VAR>', description: 'environment variable holding the token / header value' },
    'tool-prefix': { type: 'string', value: '<prefix>', description: 'prefix for exposed names that collide' },
    'timeout-ms': { type: 'string', value: '<ms>', description: 'per-call timeout towards this server' },
    wait: { type: 'boolean', description: 'wait until discovery finishes (exit 5 if it fails)' },
  },
  async run(ctx) {
    const url = str(ctx.flags, 'url');
    if (!url) throw usageError('--url: the server URL is required', 'url');
    const id = ctx.args[0];
    const body: CreateServerBody = { id, name: str(ctx.flags, 'name') ?? id, url };
    const transport = str(ctx.flags, 'transport');
    if (transport !== undefined) body.transport = transport as CreateServerBody['transport'];
    const auth = authInput(ctx);
    if (auth) body.auth = auth;
    const prefix = str(ctx.flags, 'tool-prefix');
    if (prefix !== undefined) body.toolPrefix = prefix;
    const timeoutMs = int(ctx, 'timeout-ms');
    if (timeoutMs !== undefined) body.timeoutMs = timeoutMs;
    const created = await ctx.client().call('createServer', { body });
    const server = ctx.flags.wait ? await waitForDiscovery(ctx.client(), id) : created.server;
    ctx.print(server, (s) => `added ${s.id}: discovery ${s.discovery?.state ?? 'queued'}`);
  },
};

const list: Command = {
  name: 'servers list',
  summary: 'List upstream servers with health and discovery state',
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const { servers } = await ctx.client().call('listServers');
    ctx.print(servers, (rows) => table(['ID', 'NAME', 'HEALTH', 'DISCOVERY', 'URL'], rows.map(serverLine)));
  },
};

const show: Command = {
  name: 'servers show',
  summary: 'One server and what discovery found on it',
  args: '<id>',
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const params = { id: ctx.args[0] };
    const [server, { items }] = await Promise.all([ctx.client().call('getServer', { params }), ctx.client().call('listServerItems', { params })]);
    ctx.print({ server, items }, (v) => {
      const { discovery, protocol, auth, ...rest } = v.server;
      const head = fields({ ...rest, auth: auth.mode, protocol: protocol ? `${protocol.era} ${protocol.version ?? ''}`.trim() : undefined, discovery: discovery?.state });
      const rows = v.items.map((i) => [i.kind, i.name, i.exposedName, i.pendingReview ? 'pending review' : null]);
      return `${head}\n\n${table(['KIND', 'NAME', 'PUBLISHED AS', 'REVIEW'], rows)}`;
    });
  },
};

const discover: Command = {
  name: 'servers discover',
  summary: "Run a server's discovery again",
  args: '<id>',
  positionals: { min: 1, max: 1 },
  options: { wait: { type: 'boolean', description: 'wait until discovery finishes (exit 5 if it fails)' } },
  async run(ctx) {
    const id = ctx.args[0];
    const enqueued = await ctx.client().call('discoverServer', { params: { id } });
    if (!ctx.flags.wait) return ctx.print(enqueued, (e) => (e.queued ? `discovery of ${id} queued` : `discovery of ${id} recorded: ${e.reason ?? 'pending'}`));
    const server = await waitForDiscovery(ctx.client(), id);
    ctx.print(server, (s) => `discovery of ${s.id}: ${s.discovery?.state} ${JSON.stringify(s.discovery?.counts ?? {})}`);
  },
};

const rm: Command = {
  name: 'servers rm',
  summary: 'Delete a server and its publications',
  args: '<id>',
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const answer = await ctx.client().call('deleteServer', { params: { id: ctx.args[0] } });
    ctx.print(answer ?? { id: ctx.args[0], deleted: true }, () => `deleted ${ctx.args[0]}`);
  },
};

export const SERVER_COMMANDS: Command[] = [add, list, show, discover, rm];
