import { enterpriseGroupScopes, missingScopes, type ToolEntry } from '@switchboard/catalog';
import { globList } from '@switchboard/guardrails';
import { refusesWithoutTasks, requireClientCapabilities, TASKS_EXTENSION } from '@switchboard/mcp-http';
import { isModernVersion, McpError } from '@switchboard/protocol';
import { FIX, type ExplainStep, type TenantFacts } from './explain-types';

/** The call stage's steps for a live entry: what can refuse a `tools/call` of it, with the same functions the gateway and auth run. */
export function callSteps(t: TenantFacts, entry: ToolEntry): ExplainStep[] {
  const needed = t.auth?.protected ? (t.auth.toolScopes[entry.definition.name] ?? []) : [];
  return [
    userStep(t),
    toolScopesStep(t, needed),
    idpGroupStep(t, needed),
    capabilitiesStep(t, entry),
    taskSupportStep(t, entry),
    rateLimitStep(t, entry),
    connectorStep(t, entry),
    guardrailsStep(t, entry),
  ];
}

/** Rule `user`: a directory user who is disabled or has not accepted the invitation gets no token (so no call). */
function userStep(t: TenantFacts): ExplainStep {
  const base = { rule: 'user' as const, stage: 'call' as const };
  const s = t.caller.subject;
  if (!s) return { ...base, verdict: 'skip', input: {}, message: 'No subject given' };
  if (!t.auth?.protected) return { ...base, verdict: 'skip', input: { ...s }, message: 'The tenant is open: users do not sign in' };
  const input = { ...s };
  switch (s.status) {
    case 'active':
      return { ...base, verdict: 'pass', input, message: `${s.username} can sign in` };
    case 'unknown':
      return {
        ...base,
        verdict: 'conditional',
        input,
        message: `${s.username} is not in the user directory (an enterprise or OIDC user?)`,
      };
    case 'invited':
      return { ...base, verdict: 'refuse', input, message: `${s.username} has not accepted the invitation yet`, fix: FIX.users };
    default:
      return { ...base, verdict: 'refuse', input, message: `${s.username} is disabled: no sign-in, no token`, fix: FIX.users };
  }
}

/** Rule `tool-scopes`: a protected tenant's `toolScopes` (the gateway's `authorizeTool`, 403 insufficient_scope). */
function toolScopesStep(t: TenantFacts, needed: string[]): ExplainStep {
  const base = { rule: 'tool-scopes' as const, stage: 'call' as const };
  if (!t.auth?.protected) return { ...base, verdict: 'skip', input: {}, message: 'The tenant is open: no token, no scopes' };
  const granted = t.caller.scopes;
  const input = { needed, granted: granted ?? null };
  if (needed.length === 0) return { ...base, verdict: 'pass', input, message: 'The tool needs no scope beyond a valid token' };
  if (!granted)
    return {
      ...base,
      verdict: 'conditional',
      input,
      message: `A token needs ${needed.join(' ')} (give scopes= to check one)`,
      fix: FIX.auth,
    };
  const missing = missingScopes(granted, needed);
  if (missing.length === 0) return { ...base, verdict: 'pass', input, message: 'The scopes cover the tool' };
  return {
    ...base,
    verdict: 'refuse',
    input: { ...input, missing },
    message: `403 insufficient_scope: lacks ${missing.join(' ')}`,
    fix: FIX.auth,
  };
}

/** Rule `idp-group`: an enterprise IdP's group mapping decides which scopes its users' tokens can carry (auth's grant). */
function idpGroupStep(t: TenantFacts, needed: string[]): ExplainStep {
  const base = { rule: 'idp-group' as const, stage: 'call' as const };
  const idps = (t.auth?.protected ? t.auth.enterpriseIdps : []).filter((i) => Object.keys(i.groupScopes).length > 0);
  if (idps.length === 0 || needed.length === 0)
    return { ...base, verdict: 'skip', input: {}, message: 'No enterprise IdP maps groups to the scopes this tool needs' };
  const granting = idps.map((i) => ({
    issuer: i.issuer,
    groups: Object.entries(i.groupScopes)
      .filter(([, s]) => missingScopes(s, needed).length === 0)
      .map(([g]) => g),
  }));
  const groups = t.caller.groups;
  if (!groups)
    return {
      ...base,
      verdict: 'conditional',
      input: { needed, granting },
      message: 'Enterprise users need a group that maps to its scopes (give groups= to check one)',
      fix: FIX.enterprise,
    };
  const results = idps.map((i) => {
    const allowed = enterpriseGroupScopes(i, groups) ?? new Set<string>();
    return { issuer: i.issuer, allowed: [...allowed], missing: missingScopes([...allowed], needed) };
  });
  const input = { needed, groups, idps: results };
  if (results.some((r) => r.missing.length === 0))
    return { ...base, verdict: 'pass', input, message: 'These groups map to the scopes the tool needs' };
  return {
    ...base,
    verdict: 'refuse',
    input,
    message: `These groups get no token with ${needed.join(' ')}: add a group mapping or a group`,
    fix: FIX.enterprise,
  };
}

/** Rule `client-capabilities`: a tool its upstream registers only for clients with a capability (−32021 otherwise). */
function capabilitiesStep(t: TenantFacts, entry: ToolEntry): ExplainStep {
  const base = { rule: 'client-capabilities' as const, stage: 'call' as const };
  const required = entry.definition.requiredClientCapabilities ?? [];
  if (required.length === 0) return { ...base, verdict: 'pass', input: { required }, message: 'No client capability needed' };
  const declared = t.caller.capabilities;
  const input = { required, declared: declared ?? null };
  if (!declared)
    return {
      ...base,
      verdict: 'conditional',
      input,
      message: `Clients must declare ${required.join(', ')} (give capabilities= to check one)`,
      fix: FIX.servers,
    };
  try {
    requireClientCapabilities(entry.definition.name, required, capabilitiesOf(declared), eraOf(t));
    return { ...base, verdict: 'pass', input, message: 'The client declares what the tool needs' };
  } catch (err) {
    if (!(err instanceof McpError)) throw err;
    return { ...base, verdict: 'refuse', input, message: `−32021: ${err.message}`, fix: FIX.servers };
  }
}

/** Rule `task-support`: a tool that runs only as a task is refused to a 2026-07-28 client without the tasks extension (−32021). */
function taskSupportStep(t: TenantFacts, entry: ToolEntry): ExplainStep {
  const base = { rule: 'task-support' as const, stage: 'call' as const };
  const taskSupport = entry.definition.taskSupport;
  const declared = t.caller.capabilities;
  const input = { taskSupport: taskSupport ?? null, era: eraOf(t), declared: declared ?? null };
  if (!refusesWithoutTasks(taskSupport, eraOf(t), {}))
    return { ...base, verdict: 'pass', input, message: 'Callable without the tasks extension at this version' };
  if (!declared)
    return {
      ...base,
      verdict: 'conditional',
      input,
      message: 'It runs only as a task: clients must declare the tasks extension (give capabilities=tasks)',
    };
  if (!refusesWithoutTasks(taskSupport, eraOf(t), capabilitiesOf(declared)))
    return { ...base, verdict: 'pass', input, message: 'The client declares the tasks extension' };
  return {
    ...base,
    verdict: 'refuse',
    input,
    message: `−32021: it runs only as a task and the client lacks ${TASKS_EXTENSION}`,
    fix: FIX.servers,
  };
}

const eraOf = (t: TenantFacts) => (isModernVersion(t.version) ? 'modern' : 'legacy');

/** The client capabilities object a client declaring these names sends (both eras' shapes of `tasks`). */
function capabilitiesOf(declared: readonly string[]): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  for (const c of declared) {
    if (c === 'elicitation.url') caps.elicitation = { ...(caps.elicitation as object | undefined), url: {} };
    else if (c === 'tasks') Object.assign(caps, { tasks: {}, extensions: { [TASKS_EXTENSION]: {} } });
    else caps[c] ??= {};
  }
  return caps;
}

/** Rule `rate-limit`: the tenant's limits that apply to the tool's calls (past them a call answers −32029); they depend on traffic. */
function rateLimitStep(t: TenantFacts, entry: ToolEntry): ExplainStep {
  const base = { rule: 'rate-limit' as const, stage: 'call' as const };
  const plan = t.ratePlan ?? {};
  const own = plan.tools && Object.hasOwn(plan.tools, entry.definition.name) ? plan.tools[entry.definition.name] : undefined;
  const perCaller = own ?? plan.subject;
  const input = { tool: own ?? null, subject: plan.subject ?? null, tenant: plan.tenant ?? null, dailyCalls: plan.dailyCalls ?? null };
  if (!perCaller && !plan.tenant && !plan.dailyCalls)
    return { ...base, verdict: 'pass', input, message: "No limit of the tenant's own: the operator defaults apply" };
  const parts = [
    perCaller ? `${perCaller.requestsPerSecond}/s (burst ${perCaller.burst}) per caller${own ? ' for this tool' : ''}` : '',
    plan.tenant ? `${plan.tenant.requestsPerSecond}/s (burst ${plan.tenant.burst}) for the tenant` : '',
    plan.dailyCalls ? `${plan.dailyCalls} calls a day` : '',
  ].filter(Boolean);
  return { ...base, verdict: 'conditional', input, message: `Calls past ${parts.join(', ')} answer −32029`, fix: FIX.limits };
}

/**
 * Rule `connector`: a server whose calls carry each user's own upstream token (the auth service's
 * vault, or an enterprise grant): a user without one is refused, and an open tenant, having no
 * user, fails closed (the gateway's `isConnector`).
 */
function connectorStep(t: TenantFacts, entry: ToolEntry): ExplainStep {
  const base = { rule: 'connector' as const, stage: 'call' as const };
  const server = entry.route.kind === 'upstream' ? entry.route.serverId : undefined;
  const connector = server !== undefined && t.auth && Object.hasOwn(t.auth.connectors, server) ? t.auth.connectors[server] : undefined;
  const input = { server: server ?? null, connector: connector !== undefined, grant: connector?.grant?.kind ?? null };
  if (!connector) return { ...base, verdict: 'pass', input, message: 'The server uses its own credential' };
  if (!t.auth?.protected)
    return {
      ...base,
      verdict: 'refuse',
      input,
      message: 'A connector needs a signed-in user, and the tenant is open: calls fail closed',
      fix: FIX.connectors,
    };
  return {
    ...base,
    verdict: 'conditional',
    input,
    message: connector.grant
      ? `Each user's upstream token comes from their enterprise identity (${connector.grant.kind}), else a linked account`
      : 'Each user must link their upstream account first',
    fix: FIX.connectors,
  };
}

/** Rule `guardrails`: enforcing interceptors on tools/call that match the tool (a validation's or a mutation's deny, or failing closed) can refuse its calls. */
function guardrailsStep(t: TenantFacts, entry: ToolEntry): ExplainStep {
  const base = { rule: 'guardrails' as const, stage: 'call' as const };
  const server = entry.route.kind === 'upstream' ? entry.route.serverId : entry.route.handler;
  const matching = t.interceptors.filter(
    (i) =>
      i.hook.events.includes('tools/call') &&
      (i.mode ?? 'enforce') === 'enforce' &&
      globList(i.match?.servers)(server) &&
      globList(i.match?.tools)(entry.definition.name),
  );
  const input = { interceptors: matching.map((i) => i.name) };
  if (matching.length === 0) return { ...base, verdict: 'pass', input, message: 'No enforcing interceptor runs on its calls' };
  return {
    ...base,
    verdict: 'conditional',
    input,
    message: `Enforcing interceptors may refuse a call depending on its arguments: ${matching.map((i) => i.name).join(', ')}`,
    fix: FIX.guardrails,
  };
}
