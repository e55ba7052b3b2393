import type { BundleHandlers, CompiledCatalog, Route } from '@switchboard/catalog';
import { ErrorCode, MCP_APPS_EXTENSION, McpError, isJsonObject, isUiUri, type LogLevel } from '@switchboard/protocol';
import { statefulRoutes } from './stateful-routes';
import { invokeContextOf } from './call-context';
import type { ClientRequestBroker } from './client-request-broker';
import { withClientInput } from './client-input';
import type { DispatchInput } from './dispatch-input';
import { appsVisible, readUpstreamApp } from './read-app-resource';
import type { StateSealer } from './state-sealer';
import type { UpstreamCompletion, UpstreamInvoker } from './upstream-invoker';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

/** Why an unlisted URI is not read: the per-server publication setting that would route it. */
const DYNAMIC_RESOURCES_HINT =
  ' (it is neither a published resource nor under a URI prefix a server publishes as "dynamic resources" (setting dynamicResources, off by default))';

/** Why a `ui://` resource is not read for this client. */
const APPS_HINT = ` (a ui:// resource is served only to clients that declare the "${MCP_APPS_EXTENSION}" extension)`;

/**
 * `resources/read`, `prompts/get` and `completion/complete`: a tenant's content, local or from
 * its upstream; and a legacy caller's subscriptions and log level, forwarded to the upstreams.
 */
export class ContentRequests {
  private readonly templates = new WeakMap<
    CompiledCatalog,
    ReadonlyMap<string, CompiledCatalog['snapshot']['resourceTemplates'][number]>
  >();

  constructor(
    private readonly handlers: BundleHandlers,
    private readonly upstream: UpstreamInvoker | undefined,
    private readonly clientRequests: ClientRequestBroker | undefined,
    private readonly sealer: StateSealer | undefined,
  ) {}

  async readResource(input: DispatchInput, catalog: CompiledCatalog, params: Record<string, unknown>): Promise<object> {
    const uri = params.uri;
    if (typeof uri !== 'string' || uri.length === 0) throw new McpError(ErrorCode.InvalidParams, 'params.uri must be a non-empty string');
    const found = catalog.resource(uri);
    const notFound = (why = '') =>
      new McpError(
        input.context.era === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound,
        `Resource not found: ${uri}${why}`,
        { uri },
      );
    // A client that did not declare MCP Apps never sees UI resources, listed or read.
    if (isUiUri(uri) && !appsVisible(input, catalog)) throw notFound(APPS_HINT);
    const ctx = invokeContextOf(input, this.clientRequests, this.sealer);
    if (!found) {
      // Not listed: a URI the upstream produced (a link, a session resource) is readable only
      // under a prefix its server publishes as dynamic resources; the prefix names the one owner.
      const dynamic = catalog.dynamicResource(uri);
      if (dynamic?.route.kind !== 'upstream') throw notFound(DYNAMIC_RESOURCES_HINT);
      return this.requireUpstream(dynamic.route).readResource(dynamic.route, uri, ctx);
    }
    if ('entry' in found) {
      const route = found.entry.route;
      if (route.kind === 'upstream' && isUiUri(uri)) return readUpstreamApp(this.requireUpstream(route), route, uri, ctx);
      if (route.kind === 'upstream') return this.requireUpstream(route).readResource(route, uri, ctx);
      const resource = this.handlers.resources.get(route.handler);
      if (!resource) throw notFound();
      return { contents: await resource.read(ctx) };
    }
    const route = found.template.route;
    if (route.kind === 'upstream') return this.requireUpstream(route).readResource(route, uri, ctx);
    const template = this.handlers.resourceTemplates.get(route.handler);
    if (!template) throw notFound();
    return { contents: await template.read(uri, found.vars, ctx) };
  }

  async getPrompt(input: DispatchInput, catalog: CompiledCatalog, params: Record<string, unknown>): Promise<object> {
    const name = params.name;
    if (typeof name !== 'string' || name.length === 0)
      throw new McpError(ErrorCode.InvalidParams, 'params.name must be a non-empty string');
    const entry = catalog.prompt(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new McpError(ErrorCode.InvalidParams, 'params.arguments must be an object');
    }
    const ctx = invokeContextOf(input, this.clientRequests, this.sealer);
    if (entry.route.kind === 'upstream')
      return this.requireUpstream(entry.route).getPrompt(entry.route, args as Record<string, string>, ctx);
    const prompt = this.handlers.prompts.get(entry.route.handler);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return withClientInput(
      this.clientRequests,
      input,
      ctx,
      (c) => prompt.get(args, c),
      (why) => {
        throw new McpError(ErrorCode.InternalError, `Prompt ${name} failed: ${why}`);
      },
    );
  }

  /**
   * `completion/complete`: a local prompt completes in process; an upstream's prompt or resource
   * template is forwarded to that upstream with its own name (or URI template) in `ref`, and
   * its answer bounded ({@link boundCompletion}). An upstream without completions (−32601)
   * means no suggestions; an unknown template keeps the empty answer it always had.
   */
  async complete(input: DispatchInput, catalog: CompiledCatalog, params: Record<string, unknown>): Promise<object> {
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (!ref || typeof ref !== 'object') throw new McpError(ErrorCode.InvalidParams, 'params.ref must be an object');
    if (!argument || typeof argument.name !== 'string')
      throw new McpError(ErrorCode.InvalidParams, 'params.argument.name must be a string');
    const value = typeof argument.value === 'string' ? argument.value : '';
    const request = { argument: { name: argument.name, value }, ...completionContext(params.context) };
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const entry = catalog.prompt(ref.name);
      if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      if (entry.route.kind === 'upstream')
        return this.completeUpstream(input, entry.route, { ref: { type: 'ref/prompt', name: entry.route.upstreamName }, ...request });
      const prompt = this.handlers.prompts.get(entry.route.handler);
      return boundCompletion(prompt ? prompt.complete(argument.name, value) : []);
    }
    if (ref.type !== 'ref/resource') throw new McpError(ErrorCode.InvalidParams, 'params.ref.type must be ref/prompt or ref/resource');
    if (typeof ref.uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'params.ref.uri must be a string');
    const template = this.templateByUri(catalog).get(ref.uri);
    if (template?.route.kind !== 'upstream') return boundCompletion([]);
    return this.completeUpstream(input, template.route, { ref: { type: 'ref/resource', uri: template.route.upstreamName }, ...request });
  }

  private async completeUpstream(input: DispatchInput, route: UpstreamRoute, request: UpstreamCompletion): Promise<object> {
    const upstream = this.requireUpstream(route);
    if (!upstream.complete) return boundCompletion([]);
    try {
      const answer = await upstream.complete(route, request, invokeContextOf(input, this.clientRequests, this.sealer));
      const completion = isJsonObject(answer) && isJsonObject(answer.completion) ? answer.completion : {};
      return boundCompletion(Array.isArray(completion.values) ? completion.values : [], completion.total, completion.hasMore);
    } catch (err) {
      if ((err as { code?: unknown }).code === ErrorCode.MethodNotFound) return boundCompletion([]);
      throw err;
    }
  }

  /** Resource templates by their URI template (what `ref/resource` names), built once per compiled catalog. */
  private templateByUri(catalog: CompiledCatalog): ReadonlyMap<string, CompiledCatalog['snapshot']['resourceTemplates'][number]> {
    let map = this.templates.get(catalog);
    if (!map)
      this.templates.set(catalog, (map = new Map(catalog.snapshot.resourceTemplates.map((t) => [t.definition.uriTemplate, t] as const))));
    return map;
  }

  /**
   * A legacy caller's level reaches each stateful upstream's session for this caller (what
   * the upstream sends it, on its calls' streams, then follows the level). Best effort: an
   * upstream without logging refuses it, and the caller's own answer is `{}` either way.
   */
  async forwardLogLevel(input: DispatchInput, level: LogLevel): Promise<void> {
    const upstream = this.upstream;
    if (!upstream?.setLogLevel) return;
    const routes = statefulRoutes(input.target.catalog);
    if (routes.length === 0) return;
    const ctx = invokeContextOf(input, this.clientRequests, this.sealer);
    await Promise.allSettled(routes.map((route) => upstream.setLogLevel!(route, level, ctx)));
  }

  /**
   * A legacy caller's subscription reaches the upstream owning the URI (listed, templated or a
   * published dynamic resource), on its session for this caller: its updates then reach the
   * caller's calls (see the pool). Best effort: the answer stays `{}`, as before, whatever it says.
   */
  async forwardSubscription(input: DispatchInput, uri: unknown, on: boolean): Promise<void> {
    const upstream = this.upstream;
    if (!upstream?.subscribeResource || typeof uri !== 'string' || uri.length === 0) return;
    const catalog = input.target.catalog;
    const found = catalog.resource(uri);
    const route = found ? ('entry' in found ? found.entry.route : found.template.route) : catalog.dynamicResource(uri)?.route;
    if (route?.kind !== 'upstream') return;
    await upstream.subscribeResource(route, uri, on, invokeContextOf(input, this.clientRequests, this.sealer)).catch(() => undefined);
  }

  private requireUpstream(route: UpstreamRoute): UpstreamInvoker {
    if (!this.upstream) throw new McpError(ErrorCode.InternalError, `No upstream invoker configured for server ${route.serverId}`);
    return this.upstream;
  }
}

/** Most values one completion answers (the spec's cap). */
const MAX_COMPLETION_VALUES = 100;
/** Longest completion value passed on; a longer one is dropped (a cut value would complete to something else). */
export const MAX_COMPLETION_VALUE_LENGTH = 1024;

/**
 * A completion as the client gets it, whoever produced it: string values of at most
 * {@link MAX_COMPLETION_VALUE_LENGTH} characters, at most {@link MAX_COMPLETION_VALUES} of
 * them; `total` and `hasMore` kept when they are well-formed, `hasMore` set when values were cut.
 */
function boundCompletion(raw: readonly unknown[], total?: unknown, hasMore?: unknown): object {
  const fit = raw.filter((v): v is string => typeof v === 'string' && v.length <= MAX_COMPLETION_VALUE_LENGTH);
  const values = fit.slice(0, MAX_COMPLETION_VALUES);
  const cut = values.length < raw.length;
  const completion: Record<string, unknown> = { values };
  const count = typeof total === 'number' && Number.isSafeInteger(total) && total >= values.length ? total : raw.length;
  completion.total = count;
  completion.hasMore = cut || hasMore === true;
  return { completion };
}

/** `params.context.arguments` (already-chosen arguments) passed on when it is a map of strings. */
function completionContext(context: unknown): { context?: { arguments: Record<string, string> } } {
  if (context === undefined) return {};
  const args = isJsonObject(context) ? context.arguments : undefined;
  if (args === undefined) return {};
  if (!isJsonObject(args) || !Object.values(args).every((v) => typeof v === 'string'))
    throw new McpError(ErrorCode.InvalidParams, 'params.context.arguments must be an object of strings');
  return { context: { arguments: args as Record<string, string> } };
}
