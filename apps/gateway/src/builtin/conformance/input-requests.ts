import type { InputRequest, ToolContext } from '@switchboard/catalog';
import { ErrorCode, McpError } from '@switchboard/protocol';

/** The client capability each MRTR input request needs (2026-07-28 clientCapabilities keys). */
const CAPABILITY: Readonly<Record<InputRequest['method'], string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** An `elicitation/create` input request for a form. */
export function elicit(message: string, requestedSchema: Record<string, unknown>): InputRequest {
  return { method: 'elicitation/create', params: { message, requestedSchema } };
}

/** A `sampling/createMessage` input request for one user text message. */
export function sample(text: string, maxTokens: number): InputRequest {
  return { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens } };
}

/** A `roots/list` input request. */
export function listRoots(): InputRequest {
  return { method: 'roots/list', params: {} };
}

/** Whether the client declared the capability `request` needs (in its per-request `_meta`). */
export function canAsk(ctx: ToolContext, request: InputRequest): boolean {
  const caps = ctx.request?.clientCapabilities ?? {};
  return Object.hasOwn(caps, CAPABILITY[request.method]);
}

/**
 * Throws the 2026-07-28 MissingRequiredClientCapability error unless the client declared
 * what every request needs.
 * @throws McpError −32021 (HTTP 400) with `data.requiredCapabilities` as a ClientCapabilities object.
 */
export function requireCapabilities(ctx: ToolContext, requests: readonly InputRequest[]): void {
  const missing = requests.filter((r) => !canAsk(ctx, r)).map((r) => CAPABILITY[r.method]);
  if (missing.length === 0) return;
  const requiredCapabilities = Object.fromEntries(missing.map((m) => [m, {}]));
  throw new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `This request needs client capabilities the client did not declare: ${[...new Set(missing)].join(', ')}`,
    { requiredCapabilities },
    400,
  );
}

/** The `content` of an accepted elicitation answer under `key`, else undefined (declined, missing or malformed). */
export function acceptedContent(ctx: ToolContext, key: string): Record<string, unknown> | undefined {
  const answer = ctx.input?.responses[key];
  if (!isObject(answer) || answer.action !== 'accept' || !isObject(answer.content)) return undefined;
  return answer.content;
}

/** The text of a sampling answer (`CreateMessageResult`) under `key`, else undefined. */
export function sampledText(ctx: ToolContext, key: string): string | undefined {
  const answer = ctx.input?.responses[key];
  if (!isObject(answer) || !isObject(answer.content)) return undefined;
  return typeof answer.content.text === 'string' ? answer.content.text : undefined;
}

/** The roots of a `roots/list` answer under `key`, else undefined. */
export function rootsOf(ctx: ToolContext, key: string): Array<{ uri: string; name?: string }> | undefined {
  const answer = ctx.input?.responses[key];
  if (!isObject(answer) || !Array.isArray(answer.roots)) return undefined;
  const roots = answer.roots.filter((r): r is { uri: string; name?: string } => isObject(r) && typeof r.uri === 'string');
  return roots.length === answer.roots.length ? roots : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
