/** Label value for tenants (and tools) without a slot of their own. */
export const OTHER_LABEL = 'other';

export interface SeriesBudgetOptions {
  /**
   * Tenants that get their own `tenant` label value (the busiest, see below); the rest are `other`.
   * Default 25: keeps each instrument under the SDK's 2,000 attribute sets (docs/operations.md).
   */
  maxTenants?: number;
  /** Tool names per labelled tenant that get their own `tool` label value; later ones are `other`. Default 20. */
  maxToolsPerTenant?: number;
  /** Requests a tenant must have made (in this process) before it may take a free slot. Default 10. */
  minRequests?: number;
  /** Tenants whose label is always their own (operator-pinned, e.g. key customers); they count against maxTenants. */
  pinnedTenants?: readonly string[];
  /** Distinct tenants whose traffic is counted while slots are free (bounds the counting map). Default 100,000. */
  maxTracked?: number;
  /** Tenants whose latency histogram is also split by tool (opt-in: ×tools series); they are pinned too. */
  histogramToolTenants?: readonly string[];
}

let installed: SeriesBudget | undefined;

/**
 * Bounds the `tenant` and `tool` label values of the request metrics, so the series count of
 * a replica does not grow with the number of tenants or tools (tenants × tools would be
 * millions of series). A tenant gets its own label once it has made `minRequests`
 * requests and a slot is free — the busiest tenants reach the threshold first, so the slots go
 * to the top of the traffic; slots are sticky for the process lifetime (a cumulative series
 * is never deleted, so re-ranking would only add series). Everyone else is `other`; their
 * individual requests stay findable through the spans (trace exemplars, `switchboard.tenant.id`).
 * Tool labels exist only for labelled tenants, at most `maxToolsPerTenant` each.
 */
export class SeriesBudget {
  readonly maxTenants: number;
  readonly maxToolsPerTenant: number;
  private readonly minRequests: number;
  private readonly maxTracked: number;
  /** Labelled tenant → its labelled tools. */
  private readonly slots = new Map<string, Set<string>>();
  private readonly counts = new Map<string, number>();
  private readonly histogramTools: ReadonlySet<string>;

  /** The process-wide budget the MCP spans record through (`startTelemetry` installs one from the environment). */
  static current(): SeriesBudget {
    installed ??= new SeriesBudget();
    return installed;
  }

  /** Replaces the process-wide budget (startTelemetry; tests). */
  static install(budget: SeriesBudget): void {
    installed = budget;
  }

  constructor(options: SeriesBudgetOptions = {}) {
    this.maxTenants = options.maxTenants ?? 25;
    this.maxToolsPerTenant = options.maxToolsPerTenant ?? 20;
    this.minRequests = options.minRequests ?? 10;
    this.maxTracked = options.maxTracked ?? 100_000;
    this.histogramTools = new Set(options.histogramToolTenants ?? []);
    for (const t of [...(options.histogramToolTenants ?? []), ...(options.pinnedTenants ?? [])])
      if (this.slots.size < this.maxTenants) this.slots.set(t, new Set());
  }

  /** The `tenant` label of a request of `tenantId` (counts the request towards a slot). */
  tenant(tenantId: string): string {
    if (this.slots.has(tenantId)) return tenantId;
    if (this.slots.size >= this.maxTenants) return OTHER_LABEL;
    const n = (this.counts.get(tenantId) ?? 0) + 1;
    if (n >= this.minRequests) {
      this.slots.set(tenantId, new Set());
      this.counts.delete(tenantId);
      // Once full, nobody else can get a slot: the counters are dead weight.
      if (this.slots.size >= this.maxTenants) this.counts.clear();
      return tenantId;
    }
    if (this.counts.size < this.maxTracked || this.counts.has(tenantId)) this.counts.set(tenantId, n);
    return OTHER_LABEL;
  }

  /** The `tool` label of `tool` (already a catalog-known name, or '') for a tenant whose label is `tenantLabel`. */
  tool(tenantLabel: string, tool: string): string {
    if (tool === '') return '';
    const tools = this.slots.get(tenantLabel);
    if (!tools) return OTHER_LABEL;
    if (tools.has(tool)) return tool;
    if (tools.size >= this.maxToolsPerTenant) return OTHER_LABEL;
    tools.add(tool);
    return tool;
  }

  /** The tool label of the latency histogram: the tool label for tenants that opted in, else '' (no tool dimension). */
  histogramTool(tenantLabel: string, toolLabel: string): string {
    return this.histogramTools.has(tenantLabel) ? toolLabel : '';
  }

  /** The `upstream` label: the upstream id for a labelled tenant (bounded by its catalog), else `other`. */
  upstream(tenantLabel: string, upstreamId: string): string {
    return this.slots.has(tenantLabel) ? upstreamId : OTHER_LABEL;
  }

  /** Tenants holding a slot now. */
  labelledTenants(): string[] {
    return [...this.slots.keys()];
  }
}
