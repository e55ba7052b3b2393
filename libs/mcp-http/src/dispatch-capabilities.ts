import type { CompiledCatalog, Route } from '@switchboard/catalog';
import type { McpTarget } from './mcp-target';
import { TASKS_EXTENSION } from './task-manager';

type ToolDefinitionTaskSupport = 'optional' | 'required' | undefined;

/** Which kinds of task this dispatcher can serve (each needs its own collaborator). */
export interface TaskKinds {
  /** Gateway tasks (the tasks extension's TaskManager). */
  gateway: boolean;
  /** 2025-11-25 upstreams' own tasks, and whether their tasks can be listed. */
  legacyUpstream: { lists: boolean } | undefined;
  /** 2026-07-28 upstreams' own tasks. */
  modernUpstream: boolean;
}

/** The capabilities a catalog answers `initialize` and `server/discover` with, derived once per compiled catalog. */
export class CatalogCapabilities {
  private readonly discoverCaps = new WeakMap<CompiledCatalog, Record<string, unknown>>();
  private readonly initializeCaps = new WeakMap<CompiledCatalog, Record<string, unknown>>();

  constructor(private readonly tasks: TaskKinds) {}

  /**
   * `server/discover` capabilities, derived once per compiled catalog (a swap compiles a new one,
   * and a target's extensions come from the same tenant document): the catalog's, the tasks
   * extension when it applies, and the extensions the tenant's settings declare.
   */
  discoverCapabilities(target: McpTarget): Record<string, unknown> {
    const catalog = target.catalog;
    let caps = this.discoverCaps.get(catalog);
    if (!caps) {
      caps = this.withTasks(catalog, withoutResourceSubscribe(catalog.capabilities));
      if (target.extensions) {
        const extensions =
          typeof caps.extensions === 'object' && caps.extensions !== null ? (caps.extensions as Record<string, unknown>) : {};
        caps = { ...caps, extensions: { ...extensions, ...target.extensions } };
      }
      this.discoverCaps.set(catalog, caps);
    }
    return caps;
  }

  /**
   * Legacy `initialize` capabilities: the 2025-11-25 tasks utility (task-augmented tools/call,
   * tasks/get, tasks/result, tasks/cancel) when a tool of the catalog is a 2025-11-25
   * upstream's task tool, whose tasks the gateway proxies.
   */
  initializeCapabilities(catalog: CompiledCatalog): Record<string, unknown> {
    let caps = this.initializeCaps.get(catalog);
    if (!caps) {
      const proxied =
        this.tasks.legacyUpstream !== undefined && catalog.snapshot.tools.some((t) => proxiesTasks(t.route, t.definition.taskSupport));
      caps = proxied
        ? {
            ...catalog.capabilities,
            tasks: { ...(this.tasks.legacyUpstream!.lists ? { list: {} } : {}), cancel: {}, requests: { tools: { call: {} } } },
          }
        : catalog.capabilities;
      this.initializeCaps.set(catalog, caps);
    }
    return caps;
  }

  /**
   * Discover capabilities name the tasks extension when a tool of the catalog can become a task:
   * a gateway task, or a 2026-07-28 upstream's own (that upstream decides per call).
   */
  private withTasks(catalog: CompiledCatalog, capabilities: Record<string, unknown>): Record<string, unknown> {
    const gatewayTasks = this.tasks.gateway && catalog.snapshot.tools.some((t) => t.definition.taskSupport !== undefined);
    const upstreamTasks =
      this.tasks.modernUpstream && catalog.snapshot.tools.some((t) => t.route.kind === 'upstream' && t.route.protocol === 'modern');
    if (!gatewayTasks && !upstreamTasks) return capabilities;
    const extensions =
      typeof capabilities.extensions === 'object' && capabilities.extensions !== null
        ? (capabilities.extensions as Record<string, unknown>)
        : {};
    return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
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
export function proxiesTasks(route: Route, taskSupport: ToolDefinitionTaskSupport): boolean {
  return taskSupport !== undefined && route.kind === 'upstream' && route.protocol !== 'modern';
}
