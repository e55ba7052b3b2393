import type { CatalogSnapshot, DiscoverySettings, TenantAuthSettings, TenantRatePlan } from '@switchboard/catalog';
import type { ProtocolVersion, SurfaceProfile } from '@switchboard/protocol';
import type { ToolOverrides } from '../http/schemas';

/**
 * What one rule says about a tool: `pass`; `warn` (it passes, but something waits on the tenant);
 * `hide` (left out of `tools/list`, or never published); `refuse` (a `tools/call` is refused);
 * `conditional` (depends on the caller, and the request did not say enough to decide); `skip`
 * (the rule does not apply to this tenant or tool).
 */
export type RuleVerdict = 'pass' | 'warn' | 'hide' | 'refuse' | 'conditional' | 'skip';

/** Every rule that can hide or refuse a tool, in the order they are applied (docs/explain.md). */
export const EXPLAIN_RULES = [
  'discovered',
  'publish-checks',
  'published',
  'exposed-name',
  'change-review',
  'live',
  'retired',
  'surface',
  'name-charset',
  'name-length',
  'max-tools',
  'discovery',
  'listed',
  'user',
  'tool-scopes',
  'idp-group',
  'client-capabilities',
  'task-support',
  'rate-limit',
  'connector',
  'guardrails',
] as const;
export type ExplainRuleId = (typeof EXPLAIN_RULES)[number];

/** Where the rule is decided: at publish, when the surface's list is compiled, or when a call arrives. */
export type RuleStage = 'publish' | 'list' | 'call';

/** One rule's outcome: its input, verdict, a sentence and the console place that changes it. */
export interface ExplainStep {
  rule: ExplainRuleId;
  stage: RuleStage;
  verdict: RuleVerdict;
  input: Record<string, unknown>;
  message: string;
  fix?: { label: string; href: string };
}

export interface ToolExplanation {
  tool: string;
  /** The tool's server and upstream name when known (the console's tool editor key). */
  server?: string;
  upstreamName?: string;
  surface: string;
  version: string;
  /** Whether the surface's first `tools/list` (discovery mode included) carries the tool. */
  listed: boolean;
  /** Whether a `tools/call` by name reaches it: `depends` when a rule needs more of the caller than was given. */
  callable: 'yes' | 'no' | 'depends';
  rules: ExplainStep[];
}

/** A discovered upstream item of the asked name (registry.discovered_items). */
export interface DiscoveredFact {
  serverId: string;
  key: string;
  definition: Record<string, unknown>;
  contentHash: string;
  findings: number;
  removed: boolean;
}

/** The tool's publication (registry.publications), found by exposed name or by upstream name. */
export interface PublicationFact {
  serverId: string;
  key: string;
  exposedName: string;
  approvedHash: string;
  approvedDefinition: Record<string, unknown>;
  overrides: ToolOverrides;
}

/** One tenant interceptor's fields that say whether it can refuse a call (the sealed parts are never read). */
export interface InterceptorFact {
  name: string;
  type: string;
  mode?: string;
  hook: { events: string[]; phase?: string };
  match?: { servers?: string[]; tools?: string[] };
}

/** What the caller says about the client and user the tool is judged for. */
export interface CallerFacts {
  /** A directory user (`subject=`): its status, and where its groups came from when not given. */
  subject?: { username: string; status: 'active' | 'invited' | 'disabled' | 'unknown'; groupsFrom?: 'directory' };
  scopes?: string[];
  groups?: string[];
  capabilities?: string[];
}

/** Everything the rules read for one tenant (one per request; `tool` facts are per tool). */
export interface TenantFacts {
  snapshot: CatalogSnapshot | undefined;
  surfaces: Record<string, SurfaceProfile>;
  surfaceId: string;
  version: ProtocolVersion;
  discovery: DiscoverySettings | undefined;
  auth: TenantAuthSettings | undefined;
  interceptors: InterceptorFact[];
  /** The tenant's `limits.rate` (undefined: the operator defaults). */
  ratePlan?: TenantRatePlan;
  caller: CallerFacts;
}

export interface ToolFacts {
  name: string;
  discovered: DiscoveredFact[];
  publication: PublicationFact | undefined;
}

const enc = encodeURIComponent;

/** Console places that change a rule's input (apps/console/src/router.tsx pages). */
export const FIX = {
  servers: { label: 'Servers: register or rediscover the server', href: '/console/servers' },
  tool: (server: string, key: string, field?: string) => ({
    label: 'Tools: open the tool editor',
    href: `/console/tools?tool=${enc(`${server}/${key}`)}${field ? `&field=${enc(field)}` : ''}`,
  }),
  review: { label: 'Review: approve or reject the upstream change', href: '/console/review' },
  publish: { label: 'Tools: publish the ready tools', href: '/console/tools?filter=ready' },
  surfaces: { label: 'Settings: surface rules', href: '/console/settings' },
  discovery: { label: 'Preview: discovery mode and pinned tools', href: '/console/preview' },
  auth: { label: 'Auth: tool scopes', href: '/console/auth' },
  users: { label: 'Users: the tenant user directory', href: '/console/users' },
  enterprise: { label: 'Enterprise: IdP group scopes', href: '/console/enterprise' },
  guardrails: { label: 'Guardrails: interceptors', href: '/console/guardrails' },
  limits: { label: 'Limits: rate limits and quotas', href: '/console/limits' },
  connectors: { label: 'Auth: connectors', href: '/console/auth' },
} as const;
