import { decodeHeaderValue } from './decode-header-value';
import { ErrorCode } from './error-codes';
import { headerValue, type HttpHeaders } from './header-value';
import { McpError } from './mcp-error';

/** One argument a tool mirrors into an `Mcp-Param-<name>` header (SEP-2243 `x-mcp-header`). */
export interface HeaderParam {
  argument: string;
  header: string;
}

/** Header names SEP-2243 allows: an HTTP token without spaces or colons, ASCII only. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const MIRRORED_TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);

/**
 * The arguments of `inputSchema` annotated with a valid `x-mcp-header` (string, integer or
 * boolean properties; names unique case-insensitively). Invalid annotations are ignored here:
 * such a tool is not bound to header validation. Its caller keeps the result per tool (ToolSlot).
 */
export function headerParamsOf(inputSchema: unknown): readonly HeaderParam[] {
  if (typeof inputSchema !== 'object' || inputSchema === null) return [];
  const out: HeaderParam[] = [];
  const properties = (inputSchema as { properties?: unknown }).properties;
  if (typeof properties === 'object' && properties !== null) {
    const seen = new Set<string>();
    for (const [argument, schema] of Object.entries(properties as Record<string, unknown>)) {
      if (typeof schema !== 'object' || schema === null) continue;
      const header = (schema as Record<string, unknown>)['x-mcp-header'];
      const type = (schema as Record<string, unknown>).type;
      if (typeof header !== 'string' || !HEADER_NAME.test(header) || !MIRRORED_TYPES.has(type)) continue;
      const key = header.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ argument, header });
    }
  }
  return out;
}

/**
 * SEP-2243 server validation of a modern tools/call: every `x-mcp-header` argument present in
 * the body must arrive as `Mcp-Param-<name>` with the same value (Base64 sentinel decoded;
 * numbers and booleans as their JSON text), and a header must not claim an argument the body
 * lacks. Keeps a proxy or a WAF that routes on headers honest with what the server executes.
 * @throws McpError −32020 (HTTP 400) naming the header.
 */
export function checkParamHeaders(params: readonly HeaderParam[], args: Record<string, unknown>, headers: HttpHeaders): void {
  for (const { argument, header } of params) {
    const name = `Mcp-Param-${header}`;
    const raw = headerValue(headers, name.toLowerCase());
    const value = args[argument];
    const present = value !== undefined && value !== null;
    if (raw === undefined) {
      if (present) throw mismatch(name, `is missing (params.arguments.${argument} is set)`);
      continue;
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) throw mismatch(name, 'is not valid: the =?base64?…?= value is not canonical Base64 of UTF-8');
    if (!present) throw mismatch(name, `is set but params.arguments.${argument} is absent`);
    const expected = typeof value === 'string' ? value : JSON.stringify(value);
    if (decoded !== expected) throw mismatch(name, `does not match params.arguments.${argument}`);
  }
}

function mismatch(header: string, problem: string): McpError {
  return new McpError(ErrorCode.HeaderMismatch, `Bad Request: the ${header} header ${problem}`, { header }, 400);
}
