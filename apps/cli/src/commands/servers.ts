import type { CreateServerBody, ImportServerBody, Server, ServerAuthInput } from '@switchboard/admin-api';
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

/** `--var name=value` pairs: the values of a registry entry's URL variables. */
function variables(ctx: CommandContext): Record<string, string> | undefined {
  const raw = ctx.flags.var;
  const pairs = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  if (pairs.length === 0) return undefined;
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw usageError(`--var: "${pair}" is not name=value`, 'var');
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** `servers add --from-registry <name>`: the registry service reads the entry's server.json and registers its remote. */
async function addFromRegistry(ctx: CommandContext, name: string): Promise<void> {
  if (str(ctx.flags, 'url') !== undefined) throw usageError('--url: not with --from-registry (the registry entry names the URL)', 'url');
  const body: ImportServerBody = { name };
  if (ctx.args[0] !== undefined) body.id = ctx.args[0];
  const version = str(ctx.flags, 'version');
  if (version !== undefined) body.version = version;
  const transport = str(ctx.flags, 'transport');
  if (transport !== undefined && transport !== 'auto') body.transport = transport as ImportServerBody['transport'];
  const vars = variables(ctx);
  if (vars) body.variables = vars;
  const auth = authInput(ctx);
  if (auth) body.auth = auth;
  const prefix = str(ctx.flags, 'tool-prefix');
  if (prefix !== undefined) body.toolPrefix = prefix;
  const imported = await ctx.client().call('importServer', { body });
  const server = ctx.flags.wait ? await waitForDiscovery(ctx.client(), imported.server.id) : imported.server;
  ctx.print(
    { ...imported, server },
    (v) =>
      `added ${v.server.id} from ${v.registry.name}@${v.registry.version} (${v.registry.url}): discovery ${v.server.discovery?.state ?? 'queued'}`,
  );
}

const add: Command = {
  name: 'servers add',
  summary: 'Register an upstream MCP server and start its discovery',
  args: '<id>',
  positionals: { min: 0, max: 1 },
  details: [
    'Secrets are read from the environment variable named by --secret-env, never from the command line.',
    'With --from-registry <name>, the server is registered from its MCP Registry entry (remote servers only; the id defaults to one derived from the name).',
  ],
  options: {
    url: { type: 'string', value: '<url>', description: "the server's MCP endpoint (required without --from-registry)" },
    'from-registry': {
      type: 'string',
      value: '<name>',
      description: 'register from the MCP Registry entry of this name (e.g. io.github.acme/weather)',
    },
    version: { type: 'string', value: '<v>', description: 'with --from-registry: the entry version (default latest)' },
    var: {
      type: 'string',
      multiple: true,
      value: '<name=value>',
      description: "with --from-registry: a value for the remote URL's {variable} (repeatable)",
    },
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
    const fromRegistry = str(ctx.flags, 'from-registry');
    if (fromRegistry !== undefined) return addFromRegistry(ctx, fromRegistry);
    const url = str(ctx.flags, 'url');
    if (!url) throw usageError('--url: the server URL is required', 'url');
    const id = ctx.args[0];
    if (id === undefined) throw usageError('<id>: the server id is required (or use --from-registry)', 'id');
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
    const [server, { items }] = await Promise.all([
      ctx.client().call('getServer', { params }),
      ctx.client().call('listServerItems', { params }),
    ]);
    ctx.print({ server, items }, (v) => {
      const { discovery, protocol, auth, ...rest } = v.server;
      const head = fields({
        ...rest,
        auth: auth.mode,
        protocol: protocol ? `${protocol.era} ${protocol.version ?? ''}`.trim() : undefined,
        discovery: discovery?.state,
      });
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
    if (!ctx.flags.wait)
      return ctx.print(enqueued, (e) => (e.queued ? `discovery of ${id} queued` : `discovery of ${id} recorded: ${e.reason ?? 'pending'}`));
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
