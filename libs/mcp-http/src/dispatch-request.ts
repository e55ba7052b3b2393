import type { BundleHandlers, CompiledCatalog, InputRequest, InputRequiredResult, ListMethod, Route, ToolCallResult, ToolContext } from '@switchboard/catalog';
import {
  ErrorCode,
  LOG_LEVELS,
  McpError,
  buildDiscoverResult,
  buildInitializeResult,
  encodeNotification,
  encodeResult,
  modernResultFields,
  negotiateLegacyVersion,
  checkParamHeaders,
  headerParamsOf,
  isJsonObject,
  type LogLevel,
} from '@switchboard/protocol';
import type { ClientRequestBroker } from './client-request-broker';
import { SplicedResult, type EncodedAnswer } from './encoded-answer';
import type { ParkedCalls } from './parked-calls';
import type { DispatchInput } from './dispatch-input';
import type { InvokeContext, McpTarget, UpstreamCompletion, UpstreamInvoker } from './mcp-target';
import type { StateSealer } from './state-sealer';
import { MAX_CLIENT_INPUT_REQUESTS, askClient, canAskClient, isInputRequired, mrtrInput, withClientInput } from './client-input';
import { requireClientCapabilities } from './require-client-capabilities';
import { statefulRoutes } from './stateful-routes';
import { TASK_METHODS, TASKS_EXTENSION, declaresTasks, missingTasksCapability, type TaskManager, type TaskWork } from './task-manager';
import { LEGACY_TASK_METHODS, UpstreamTasks, listerOf, taskParams } from './upstream-tasks';
import { ModernUpstreamTasks, takesModernUpstreamTask } from './modern-upstream-tasks';
import { readLegacySession } from './legacy-session';
import type { UpstreamTaskIndex } from './upstream-task-index';

type UpstreamRoute = Extract<Route, { kind: 'upstream' }>;

export type { DispatchInput, NotificationSink } from './dispatch-input';

const LIST_METHODS: ReadonlySet<string> = new Set<ListMethod>(['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']);
const DISCOVER_TTL_MS = 300_000;
/** Notifications a parked call sends between an input_required round and its retry that are kept for the retry. */
const MAX_HELD_NOTIFICATIONS = 32;
/** Why an unlisted URI is not read: the per-server publication setting that would route it. */
const DYNAMIC_RESOURCES_HINT = ' (it is neither a published resource nor under a URI prefix a server publishes as "dynamic resources" (setting dynamicResources, off by default))';

/**
 * Turns one request into its encoded response. Wire errors (McpError) propagate to the
 * caller, which encodes them with their HTTP status; everything else that fails inside a
 * tool becomes an `isError` tool result, never a protocol crash.
 */
export class RequestDispatcher {
  constructor(
    private readonly handlers: BundleHandlers,
    private readonly upstream: UpstreamInvoker | undefined,
    private readonly sealer?: StateSealer,
    private readonly clientRequests?: ClientRequestBroker,
    private readonly tasks?: TaskManager,
    private readonly parkedCalls?: ParkedCalls,
    upstreamTaskIndex?: UpstreamTaskIndex,
  ) {
    this.upstreamTasks = UpstreamTasks.of(sealer, upstream, upstreamTaskIndex);
    this.modernUpstreamTasks = ModernUpstreamTasks.of(sealer, upstream);
  }

  private readonly discoverCaps = new WeakMap<CompiledCatalog, Record<string, unknown>>();
  private readonly templates = new WeakMap<CompiledCatalog, ReadonlyMap<string, CompiledCatalog['snapshot']['resourceTemplates'][number]>>();
  private readonly initializeCaps = new WeakMap<CompiledCatalog, Record<string, unknown>>();
  /** Proxies 2025-11-25 upstreams' own tasks (needs the sealer and an invoker that can). */
  private readonly upstreamTasks: UpstreamTasks | undefined;
  /** Proxies 2026-07-28 upstreams' own tasks (the tasks extension), with `ut2.` handles. */
  private readonly modernUpstreamTasks: ModernUpstreamTasks | undefined;

  async dispatch(input: DispatchInput): Promise<EncodedAnswer> {
    const { message, context, target } = input;
    const catalog = target.catalog;
    const params = message.params ?? {};

    if (LIST_METHODS.has(message.method)) {
      const cursor = params.cursor;
      if (cursor !== undefined && typeof cursor !== 'string') {
        throw new McpError(ErrorCode.InvalidParams, 'params.cursor must be a string');
      }
      // Discovery mode answers the first tools page; a cursor (from a full list seen earlier) still pages the full list.
      const discovered = message.method === 'tools/list' && cursor === undefined ? target.discovery?.listPage(input.surfaceId, context.protocolVersion) : undefined;
      const page = discovered ?? catalog.listPage(message.method as ListMethod, input.surfaceId, context.protocolVersion, cursor);
      return new SplicedResult(message.id, page.body, page.tail);
    }

    switch (message.method) {
      case 'initialize':
        return encodeResult(
          message.id,
          buildInitializeResult({
            protocolVersion: negotiateLegacyVersion(params.protocolVersion),
            capabilities: this.initializeCapabilities(catalog),
            serverInfo: catalog.serverInfo,
            instructions: catalog.snapshot.instructions,
          }),
        );
      case 'server/discover':
        return encodeResult(
          message.id,
          buildDiscoverResult({
            capabilities: this.discoverCapabilities(input.target),
            serverInfo: catalog.serverInfo,
            instructions: catalog.snapshot.instructions,
            ttlMs: DISCOVER_TTL_MS,
            cacheScope: 'public',
          }),
        );
      case 'ping':
        return encodeResult(message.id, {});
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        if (context.era === 'legacy') await this.forwardSubscription(input, params.uri, message.method === 'resources/subscribe');
        return encodeResult(message.id, {});
      case 'logging/setLevel':
        if (!LOG_LEVELS.includes(params.level as LogLevel)) {
          throw new McpError(ErrorCode.InvalidParams, `params.level must be one of ${LOG_LEVELS.join(', ')}`);
        }
        if (context.era === 'legacy') await this.forwardLogLevel(input, params.level as LogLevel);
        return encodeResult(message.id, {});
      case 'tools/call': {
        const meta = target.discovery && typeof params.name === 'string' ? target.discovery.call(params.name, toolArguments(params), input.surfaceId, context.protocolVersion) : undefined;
        if (meta) return this.result(input, meta);
        const called = await this.callTool(input, catalog, params);
        if ((called as { isError?: boolean }).isError === true) input.toolErrors?.toolFailed();
        return this.result(input, called);
      }
      case 'resources/read': {
        const read = await this.readResource(input, catalog, params);
        // Modern reads carry cache hints like lists; tenant resources may be user-specific.
        return this.result(input, context.era === 'modern' ? { ...read, ttlMs: 0, cacheScope: 'private' } : read);
      }
      case 'prompts/get':
        return this.result(input, await this.getPrompt(input, catalog, params));
      case 'completion/complete':
        return this.result(input, await this.complete(input, catalog, params));
      default: {
        const scope = { tenantId: target.tenantId, subject: input.auth?.subject ?? '' };
        if (this.modernUpstreamTasks && ModernUpstreamTasks.owns(params.taskId)) {
          const ctx = this.invokeContext(input);
          if (context.era === 'legacy' && LEGACY_TASK_METHODS.has(message.method)) return this.result(input, await this.modernUpstreamTasks.legacy(message.method, params, scope, catalog, ctx));
          if (context.era === 'modern' && TASK_METHODS.has(message.method)) {
            if (!declaresTasks(context.clientCapabilities)) throw missingTasksCapability(message.method);
            return this.result(input, await this.modernUpstreamTasks.modern(message.method, params, scope, catalog, ctx));
          }
        }
        if (this.upstreamTasks && context.era === 'legacy' && LEGACY_TASK_METHODS.has(message.method)) {
          return this.result(input, await this.upstreamTasks.legacy(message.method, params, scope, catalog, this.invokeContext(input), this.lister(input, scope)));
        }
        if (this.upstreamTasks && context.era === 'modern' && TASK_METHODS.has(message.method) && UpstreamTasks.owns(params.taskId)) {
          if (!declaresTasks(context.clientCapabilities)) throw missingTasksCapability(message.method);
          return this.result(input, await this.upstreamTasks.modern(message.method, params, scope, catalog, this.invokeContext(input)));
        }
        if (this.tasks && context.era === 'modern' && TASK_METHODS.has(message.method)) {
          return this.result(input, await this.tasks.handle(message.method, params, scope, declaresTasks(context.clientCapabilities)));
        }
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${message.method}`, undefined, context.era === 'modern' ? 404 : 200);
      }
    }
  }

  /**
   * A legacy caller's level reaches each stateful upstream's session for this caller (what
   * the upstream sends it, on its calls' streams, then follows the level). Best effort: an
   * upstream without logging refuses it, and the caller's own answer is `{}` either way.
   */
  private async forwardLogLevel(input: DispatchInput, level: LogLevel): Promise<void> {
    const upstream = this.upstream;
    if (!upstream?.setLogLevel) return;
    const routes = statefulRoutes(input.target.catalog);
    if (routes.length === 0) return;
    const ctx = this.invokeContext(input);
    await Promise.allSettled(routes.map((route) => upstream.setLogLevel!(route, level, ctx)));
  }

  /**
   * A legacy caller's subscription reaches the upstream owning the URI (listed, templated or a
   * published dynamic resource), on its session for this caller: its updates then reach the
   * caller's calls (see the pool). Best effort: the answer stays `{}`, as before, whatever it says.
   */
  private async forwardSubscription(input: DispatchInput, uri: unknown, on: boolean): Promise<void> {
    const upstream = this.upstream;
    if (!upstream?.subscribeResource || typeof uri !== 'string' || uri.length === 0) return;
    const catalog = input.target.catalog;
    const found = catalog.resource(uri);
    const route = found ? ('entry' in found ? found.entry.route : found.template.route) : catalog.dynamicResource(uri)?.route;
    if (route?.kind !== 'upstream') return;
    await upstream.subscribeResource(route, uri, on, this.invokeContext(input)).catch(() => undefined);
  }

  private result(input: DispatchInput, result: object): string {
    const inputRequired = (result as { resultType?: unknown }).resultType === 'input_required';
    if (input.context.era === 'modern') {
      const fields = modernResultFields(input.target.catalog.serverInfo);
      const own = (result as { _meta?: Record<string, unknown> })._meta;
      // `task` (a CreateTaskResult) is the tasks extension's discriminator.
      const resultType = inputRequired ? 'input_required' : (result as { resultType?: unknown }).resultType === 'task' ? 'task' : fields.resultType;
      return encodeResult(input.message.id, { ...result, resultType, _meta: { ...own, ...fields._meta } });
    }
    // Handlers only ask when ctx.input is present (modern); a legacy result has no way to carry it.
    if (inputRequired) throw new McpError(ErrorCode.InternalError, `${input.message.method} needs client input, which protocol ${input.context.protocolVersion} cannot carry`);
    return encodeResult(input.message.id, result);
  }

  private invokeContext(input: DispatchInput): InvokeContext & ToolContext {
    const { context, sink } = input;
    const mrtr = context.era === 'modern' ? mrtrInput(input.message.params ?? {}) : canAskClient(this.clientRequests, input) ? { responses: {} } : undefined;
    const sealer = this.sealer;
    const progressToken = context.progressToken;
    const minLevel = context.era === 'modern' ? context.logLevel : 'debug';
    const minIndex = minLevel === undefined ? Infinity : LOG_LEVELS.indexOf(minLevel);
    return {
      tenantId: input.target.tenantId,
      request: context,
      auth: input.auth,
      ...(mrtr === undefined ? {} : { input: mrtr }),
      ...(sealer === undefined ? {} : { state: { seal: (data) => sealer.seal('request-state', data), open: (token) => sealer.open('request-state', token) } }),
      ...(mrtr !== undefined && context.era === 'legacy'
        ? {
            askClient: async (method: string, params: Record<string, unknown>) => {
              const asked = await askClient(this.clientRequests!, input, { relayed: { method: method as InputRequest['method'], params } });
              if (typeof asked === 'string') throw new Error(asked);
              return asked.relayed;
            },
          }
        : {}),
      ...(sink?.canResume && sink.closeStream ? { closeStream: () => sink.closeStream!() } : {}),
      signal: input.signal,
      relaying: () => sink !== undefined && sink.relaying !== false,
      progress(progress: number, total?: number, message?: string) {
        if (progressToken === undefined || !sink) return;
        const params: Record<string, unknown> = { progressToken, progress };
        if (total !== undefined) params.total = total;
        if (message !== undefined) params.message = message;
        sink.notify(encodeNotification('notifications/progress', params));
      },
      resourceUpdated(uri: string) {
        sink?.notify(encodeNotification('notifications/resources/updated', { uri }));
      },
      log(level: LogLevel, data: unknown, logger?: string) {
        if (!sink || LOG_LEVELS.indexOf(level) < minIndex) return;
        const params: Record<string, unknown> = { level, data };
        if (logger !== undefined) params.logger = logger;
        sink.notify(encodeNotification('notifications/message', params));
      },
    };
  }

  private async callTool(input: DispatchInput, catalog: CompiledCatalog, params: Record<string, unknown>): Promise<ToolCallResult | InputRequiredResult | object> {
    const name = params.name;
    if (typeof name !== 'string' || name.length === 0) throw new McpError(ErrorCode.InvalidParams, 'params.name must be a non-empty string');
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new McpError(ErrorCode.InvalidParams, 'params.arguments must be an object');
    }
    const found = catalog.tool(name);
    if (!found) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    requireClientCapabilities(name, found.entry.definition.requiredClientCapabilities, input.context.clientCapabilities, input.context.era);
    if (input.context.era === 'modern') {
      // SEP-2243: arguments a tool mirrors into Mcp-Param-* headers must agree with the body.
      const mirrored = headerParamsOf(found.entry.definition.inputSchema);
      if (mirrored.length > 0) checkParamHeaders(mirrored, args as Record<string, unknown>, input.headers ?? {});
    }
    const route = found.entry.route;
    const ctx = this.invokeContext(input);
    const taskSupport = found.entry.definition.taskSupport;
    // Tasks extension: only a modern request that declared it may get a task; a required-task tool refuses the others.
    const asTask = taskSupport !== undefined && this.tasks !== undefined && input.context.era === 'modern';
    if (asTask && taskSupport === 'required' && !declaresTasks(input.context.clientCapabilities)) throw missingTasksCapability(`Tool ${name}`);
    const taskable = asTask && declaresTasks(input.context.clientCapabilities);
    const modernTask = this.modernUpstreamTasks !== undefined && takesModernUpstreamTask(route, input.context.era, declaresTasks(input.context.clientCapabilities), params.task);
    if (input.context.era === 'legacy' && params.task !== undefined && this.initializeCapabilities(catalog).tasks !== undefined && !proxiesTasks(route, taskSupport) && !modernTask) {
      // 2025-11-25: where tasks are declared, a task-augmented call of a tool whose taskSupport
      // is "forbidden" (absent) is refused rather than silently run as a plain call.
      throw new McpError(ErrorCode.MethodNotFound, `Tool ${name} cannot be called as a task (its execution.taskSupport is "forbidden"); call it without params.task`);
    }
    if (route.kind === 'local') {
      // Tool.call validates with the same cached validator and renders the failure.
      const tool = this.handlers.tools.get(route.handler);
      if (!tool) return toolFailure(name, 'its implementation is not available on this server');
      if (taskable) return this.runAsTask(input, ctx, (c) => tool.call(args, c));
      return withClientInput(this.clientRequests, input, ctx, (c) => tool.call(args, c), (why) => toolFailure(name, why));
    }
    // Upstream tools are validated here, before any network hop.
    const problem = found.validate(args);
    if (problem !== null) {
      return { isError: true, content: [{ type: 'text', text: `Invalid arguments for tool ${name}: ${problem}` }] };
    }
    const upstream = this.requireUpstream(route);
    if (this.upstreamTasks && taskSupport !== undefined && route.protocol !== 'modern') {
      const scope = { tenantId: input.target.tenantId, subject: input.auth?.subject ?? '' };
      // A 2025-11-25 client's task-augmented call becomes the upstream's own task, and so does
      // a 2026-07-28 one of a tool that only runs as a task (an optional one stays a gateway task).
      if (input.context.era === 'legacy' && params.task !== undefined) {
        return this.upstreamTasks.create(scope, name, route, args as Record<string, unknown>, taskParams(params.task), ctx, this.lister(input, scope));
      }
      if (taskable && taskSupport === 'required') {
        const created = await this.upstreamTasks.create(scope, name, route, args as Record<string, unknown>, {}, ctx);
        return isCreated(created) ? UpstreamTasks.modernCreated(created.task) : created;
      }
    }
    if (modernTask && route.kind === 'upstream') {
      // The caller can take a task: the 2026-07-28 upstream is asked with the tasks extension
      // declared and decides; a task it makes is proxied (see ModernUpstreamTasks).
      const scope = { tenantId: input.target.tenantId, subject: input.auth?.subject ?? '' };
      const era = input.context.era;
      const asked = (c: InvokeContext) => this.modernUpstreamTasks!.call(scope, name, route, args as Record<string, unknown>, c, era) as unknown as Promise<ToolCallResult>;
      if (era === 'modern' && this.parkedCalls) return this.callParkable(input, name, ctx, asked);
      return asked(ctx);
    }
    const call = (c: InvokeContext) => upstream.callTool(route, args as Record<string, unknown>, c);
    if (taskable) return this.runAsTask(input, ctx, call);
    if (input.context.era === 'modern' && this.parkedCalls) return this.callParkable(input, name, ctx, call);
    return call(ctx);
  }

  /**
   * Hands the call to the task manager: answered directly when quick, else as a task whose
   * work runs on with its own signal (progress and logs stop once it outlived the request).
   */
  private runAsTask(
    input: DispatchInput,
    ctx: InvokeContext & ToolContext,
    call: (ctx: InvokeContext & ToolContext) => Promise<ToolCallResult | InputRequiredResult>,
  ): Promise<ToolCallResult | InputRequiredResult | object> {
    const work: TaskWork = (taskInput, signal, detached) =>
      call({
        ...ctx,
        input: taskInput,
        signal,
        progress: (...a) => (detached() ? undefined : ctx.progress(...a)),
        log: (...a) => (detached() ? undefined : ctx.log(...a)),
      });
    const scope = { tenantId: input.target.tenantId, subject: input.auth?.subject ?? '' };
    return this.tasks!.run(scope, work, ctx.input ?? { responses: {} }, input.signal);
  }

  /**
   * `server/discover` capabilities, derived once per compiled catalog (a swap compiles a new one,
   * and a target's extensions come from the same tenant document): the catalog's, the tasks
   * extension when it applies, and the extensions the tenant's settings declare.
   */
  private discoverCapabilities(target: McpTarget): Record<string, unknown> {
    const catalog = target.catalog;
    let caps = this.discoverCaps.get(catalog);
    if (!caps) {
      caps = this.withTasks(catalog, withoutResourceSubscribe(catalog.capabilities));
      if (target.extensions) {
        const extensions = typeof caps.extensions === 'object' && caps.extensions !== null ? (caps.extensions as Record<string, unknown>) : {};
        caps = { ...caps, extensions: { ...extensions, ...target.extensions } };
      }
      this.discoverCaps.set(catalog, caps);
    }
    return caps;
  }

  /** Whose tasks/list a proxied task joins: the subject, else a session this gateway issued (see {@link listerOf}). */
  private lister(input: DispatchInput, scope: { tenantId: string; subject: string }): string | undefined {
    const session = input.headers?.['mcp-session-id'];
    const issued = typeof session === 'string' && this.sealer !== undefined && typeof readLegacySession(this.sealer, scope.tenantId, session) === 'object';
    return listerOf(scope.tenantId, scope.subject, issued ? session : undefined);
  }

  /**
   * Legacy `initialize` capabilities: the 2025-11-25 tasks utility (task-augmented tools/call,
   * tasks/get, tasks/result, tasks/cancel) when a tool of the catalog is a 2025-11-25
   * upstream's task tool, whose tasks the gateway proxies.
   */
  private initializeCapabilities(catalog: CompiledCatalog): Record<string, unknown> {
    let caps = this.initializeCaps.get(catalog);
    if (!caps) {
      const proxied = this.upstreamTasks !== undefined && catalog.snapshot.tools.some((t) => proxiesTasks(t.route, t.definition.taskSupport));
      caps = proxied ? { ...catalog.capabilities, tasks: { ...(this.upstreamTasks!.lists ? { list: {} } : {}), cancel: {}, requests: { tools: { call: {} } } } } : catalog.capabilities;
      this.initializeCaps.set(catalog, caps);
    }
    return caps;
  }

  /**
   * Discover capabilities name the tasks extension when a tool of the catalog can become a task:
   * a gateway task, or a 2026-07-28 upstream's own (that upstream decides per call).
   */
  private withTasks(catalog: CompiledCatalog, capabilities: Record<string, unknown>): Record<string, unknown> {
    const gatewayTasks = this.tasks !== undefined && catalog.snapshot.tools.some((t) => t.definition.taskSupport !== undefined);
    const upstreamTasks = this.modernUpstreamTasks !== undefined && catalog.snapshot.tools.some((t) => t.route.kind === 'upstream' && t.route.protocol === 'modern');
    if (!gatewayTasks && !upstreamTasks) return capabilities;
    const extensions = typeof capabilities.extensions === 'object' && capabilities.extensions !== null ? (capabilities.extensions as Record<string, unknown>) : {};
    return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
  }

  /**
   * A modern upstream call whose upstream may ask the client mid-call (a legacy upstream's
   * `elicitation/create`): the call is parked and the client gets `input_required`; its retry
   * (`requestState` naming the park) resumes it on whichever replica holds it.
   */
  private async callParkable(input: DispatchInput, name: string, ctx: InvokeContext & ToolContext, call: (c: InvokeContext) => Promise<ToolCallResult>): Promise<ToolCallResult | InputRequiredResult> {
    const parked = this.parkedCalls!;
    const scope = `${input.target.tenantId}\n${input.auth?.subject ?? ''}`;
    const state = ctx.input?.requestState;
    let upstreamCtx: InvokeContext & ToolContext = ctx;
    if (state !== undefined) {
      const resumed = await parked.resume(scope, name, state, ctx.input?.responses ?? {}, ctx);
      if (resumed !== undefined) return resumed as ToolCallResult | InputRequiredResult;
      // Not a park: a 2026-07-28 upstream's own state, sealed by us for this caller and tool.
      upstreamCtx = { ...ctx, input: { responses: ctx.input?.responses ?? {}, requestState: parked.openUpstreamState(scope, name, state) } };
    }
    // A 2026-07-28 upstream's input_required goes to the client with its state sealed.
    const relayed = async (c: InvokeContext): Promise<ToolCallResult | InputRequiredResult> => {
      const result = (await call(c)) as ToolCallResult | InputRequiredResult;
      if (!isInputRequired(result)) return result;
      const requests = Object.keys(result.inputRequests ?? {}).length;
      if (requests > MAX_CLIENT_INPUT_REQUESTS) return toolFailure(name, `the upstream asked ${requests} input requests at once (at most ${MAX_CLIENT_INPUT_REQUESTS})`);
      if (typeof result.requestState !== 'string') return result;
      try {
        return { ...result, requestState: parked.sealUpstreamState(scope, name, result.requestState) };
      } catch (err) {
        return toolFailure(name, (err as Error).message);
      }
    };
    const caps = input.context.clientCapabilities;
    if (caps === undefined || !['elicitation', 'sampling', 'roots'].some((c) => Object.hasOwn(caps, c))) return relayed(upstreamCtx);
    // Each retry is a new request (with its own progress token): the call's notifications go to
    // the one the client waits on, and those sent between a round and its retry wait for the retry.
    return (await parked.start(
      input.target.tenantId,
      scope,
      name,
      (ask, signal, legs) => {
        const pending: Array<(c: InvokeContext) => void> = [];
        const send = (fn: (c: InvokeContext) => void): void => {
          const leg = legs.current() as InvokeContext | undefined;
          if (leg) fn(leg);
          else if (pending.length < MAX_HELD_NOTIFICATIONS) pending.push(fn);
        };
        legs.onNext(() => {
          const leg = legs.current() as InvokeContext;
          for (const fn of pending.splice(0)) fn(leg);
        });
        return relayed({
          ...upstreamCtx,
          askClient: ask,
          signal: AbortSignal.any([ctx.signal, signal]),
          // Between a round and its retry nothing is relayed yet, but what comes is held for the retry.
          relaying: () => (legs.current() as InvokeContext | undefined)?.relaying?.() !== false,
          progress: (...a) => send((c) => c.progress(...a)),
          log: (...a) => send((c) => c.log(...a)),
          resourceUpdated: (uri) => send((c) => c.resourceUpdated?.(uri)),
        });
      },
      ctx,
    )) as ToolCallResult | InputRequiredResult;
  }

  private async readResource(input: DispatchInput, catalog: CompiledCatalog, params: Record<string, unknown>): Promise<object> {
    const uri = params.uri;
    if (typeof uri !== 'string' || uri.length === 0) throw new McpError(ErrorCode.InvalidParams, 'params.uri must be a non-empty string');
    const found = catalog.resource(uri);
    const notFound = (why = '') =>
      new McpError(input.context.era === 'modern' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound, `Resource not found: ${uri}${why}`, { uri });
    const ctx = this.invokeContext(input);
    if (!found) {
      // Not listed: a URI the upstream produced (a link, a session resource) is readable only
      // under a prefix its server publishes as dynamic resources; the prefix names the one owner.
      const dynamic = catalog.dynamicResource(uri);
      if (dynamic?.route.kind !== 'upstream') throw notFound(DYNAMIC_RESOURCES_HINT);
      return this.requireUpstream(dynamic.route).readResource(dynamic.route, uri, ctx);
    }
    if ('entry' in found) {
      const route = found.entry.route;
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

  private async getPrompt(input: DispatchInput, catalog: CompiledCatalog, params: Record<string, unknown>): Promise<object> {
    const name = params.name;
    if (typeof name !== 'string' || name.length === 0) throw new McpError(ErrorCode.InvalidParams, 'params.name must be a non-empty string');
    const entry = catalog.prompt(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const args = params.arguments ?? {};
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      throw new McpError(ErrorCode.InvalidParams, 'params.arguments must be an object');
    }
    const ctx = this.invokeContext(input);
    if (entry.route.kind === 'upstream') return this.requireUpstream(entry.route).getPrompt(entry.route, args as Record<string, string>, ctx);
    const prompt = this.handlers.prompts.get(entry.route.handler);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return withClientInput(this.clientRequests, input, ctx, (c) => prompt.get(args, c), (why) => {
      throw new McpError(ErrorCode.InternalError, `Prompt ${name} failed: ${why}`);
    });
  }

  /**
   * `completion/complete`: a local prompt completes in process; an upstream's prompt or resource
   * template is forwarded to that upstream with its own name (or URI template) in `ref`, and
   * its answer bounded ({@link boundCompletion}). An upstream without completions (−32601)
   * means no suggestions; an unknown template keeps the empty answer it always had.
   */
  private async complete(input: DispatchInput, catalog: CompiledCatalog, params: Record<string, unknown>): Promise<object> {
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (!ref || typeof ref !== 'object') throw new McpError(ErrorCode.InvalidParams, 'params.ref must be an object');
    if (!argument || typeof argument.name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'params.argument.name must be a string');
    const value = typeof argument.value === 'string' ? argument.value : '';
    const request = { argument: { name: argument.name, value }, ...completionContext(params.context) };
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const entry = catalog.prompt(ref.name);
      if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
      if (entry.route.kind === 'upstream') return this.completeUpstream(input, entry.route, { ref: { type: 'ref/prompt', name: entry.route.upstreamName }, ...request });
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
      const answer = await upstream.complete(route, request, this.invokeContext(input));
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
    if (!map) this.templates.set(catalog, (map = new Map(catalog.snapshot.resourceTemplates.map((t) => [t.definition.uriTemplate, t] as const))));
    return map;
  }

  private requireUpstream(route: UpstreamRoute): UpstreamInvoker {
    if (!this.upstream) throw new McpError(ErrorCode.InternalError, `No upstream invoker configured for server ${route.serverId}`);
    return this.upstream;
  }
}

/**
 * Modern discover capabilities: this transport serves no `subscriptions/listen` (and modern
 * removed `resources/subscribe`), so it must not claim `resources.subscribe` there; legacy
 * clients keep it (their subscribe/unsubscribe are acknowledged).
 */
function withoutResourceSubscribe(capabilities: Record<string, unknown>): Record<string, unknown> {
  const resources = capabilities.resources;
  if (typeof resources !== 'object' || resources === null || !('subscribe' in resources)) return capabilities;
  const { subscribe: _dropped, ...rest } = resources as Record<string, unknown>;
  void _dropped;
  return { ...capabilities, resources: rest };
}

/** Whether a tool's calls may be its upstream's own (proxied) tasks: a 2025-11-25 upstream's task tool. */
function proxiesTasks(route: Route, taskSupport: ToolDefinitionTaskSupport): boolean {
  return taskSupport !== undefined && route.kind === 'upstream' && route.protocol !== 'modern';
}

type ToolDefinitionTaskSupport = 'optional' | 'required' | undefined;

function isCreated(value: object): value is { task: Parameters<typeof UpstreamTasks.modernCreated>[0] } {
  return 'task' in value && typeof (value as { task?: unknown }).task === 'object';
}

/** A tools/call's `arguments`, checked as callTool checks them (a meta-tool call must not see a non-object). */
function toolArguments(params: Record<string, unknown>): Record<string, unknown> {
  const args = params.arguments ?? {};
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new McpError(ErrorCode.InvalidParams, 'params.arguments must be an object');
  return args as Record<string, unknown>;
}

function toolFailure(name: string, why: string): ToolCallResult {
  return { isError: true, content: [{ type: 'text', text: `Tool ${name} failed: ${why}` }] };
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
  if (!isJsonObject(args) || !Object.values(args).every((v) => typeof v === 'string')) throw new McpError(ErrorCode.InvalidParams, 'params.context.arguments must be an object of strings');
  return { context: { arguments: args as Record<string, string> } };
}
