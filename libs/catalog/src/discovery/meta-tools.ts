import { ErrorCode, McpError } from '@switchboard/protocol';

/** Bounds of the meta-tools' arguments and answers (a client controls the arguments). */
export const META_TOOL_LIMITS = { queryChars: 500, limit: 25, defaultLimit: 8, names: 20, summaryChars: 160 } as const;

/** The meta-tools' base names; a tenant tool of the same name keeps it, and the meta-tool takes a prefixed one. */
export const SEARCH_TOOLS = 'search_tools';
export const DESCRIBE_TOOLS = 'describe_tools';

/** The exposed names of the meta-tools for a catalog whose tool names are `taken`. */
export function metaToolNames(taken: (name: string) => boolean): { search: string; describe: string } {
  const free = (base: string) =>
    [base, `switchboard_${base}`, `switchboard_meta_${base}`].find((n) => !taken(n)) ?? `switchboard_meta_${base}_`;
  return { search: free(SEARCH_TOOLS), describe: free(DESCRIBE_TOOLS) };
}

/** The `search_tools` definition for a surface listing `total` tools of which `listed` are shown. */
export function searchToolDefinition(name: string, describeName: string, total: number): Record<string, unknown> {
  return {
    name,
    title: 'Search tools',
    description:
      `This server has ${total} tools; only a few are listed. Search them by what you want to do (plain words, e.g. "refund a payment"). ` +
      `Returns the best matches with their names and short descriptions; then call ${describeName} for their parameters, ` +
      'or call a tool directly by its name.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1, maxLength: META_TOOL_LIMITS.queryChars, description: 'What you want to do, in plain words' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: META_TOOL_LIMITS.limit,
          description: `How many matches (default ${META_TOOL_LIMITS.defaultLimit})`,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
  };
}

/** The `describe_tools` definition. */
export function describeToolDefinition(name: string, searchName: string): Record<string, unknown> {
  return {
    name,
    title: 'Describe tools',
    description: `Full definitions (description and input schema) of tools by name, e.g. names found with ${searchName}. Every tool of this server can be called by its name.`,
    inputSchema: {
      type: 'object',
      properties: {
        names: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          minItems: 1,
          maxItems: META_TOOL_LIMITS.names,
          description: 'Tool names',
        },
      },
      required: ['names'],
      additionalProperties: false,
    },
  };
}

/** `search_tools` arguments, checked: a bad one is −32602 naming the field. */
export function searchArgs(args: Record<string, unknown>): { query: string; limit: number } {
  const { query, limit } = args;
  if (typeof query !== 'string' || query.trim().length === 0 || query.length > META_TOOL_LIMITS.queryChars) {
    throw invalid(`arguments.query must be a non-empty string of at most ${META_TOOL_LIMITS.queryChars} characters`);
  }
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > META_TOOL_LIMITS.limit)) {
    throw invalid(`arguments.limit must be an integer from 1 to ${META_TOOL_LIMITS.limit}`);
  }
  return { query, limit: limit ?? META_TOOL_LIMITS.defaultLimit };
}

/** `describe_tools` arguments, checked. */
export function describeArgs(args: Record<string, unknown>): string[] {
  const names = args.names;
  if (!Array.isArray(names) || names.length === 0 || names.length > META_TOOL_LIMITS.names) {
    throw invalid(`arguments.names must be an array of 1 to ${META_TOOL_LIMITS.names} tool names`);
  }
  if (!names.every((n): n is string => typeof n === 'string' && n.length > 0 && n.length <= 256)) {
    throw invalid('arguments.names must hold non-empty strings (tool names)');
  }
  return [...new Set(names)];
}

/** A tool description cut to a summary (first sentence, bounded), for search results. */
export function summaryOf(description: string | undefined): string | undefined {
  if (description === undefined) return undefined;
  const sentence = /^(.+?[.!?])(?:\s|$)/s.exec(description)?.[1] ?? description;
  const points = Array.from(sentence.replace(/\s+/g, ' ').trim());
  return points.length <= META_TOOL_LIMITS.summaryChars
    ? points.join('')
    : `${points.slice(0, META_TOOL_LIMITS.summaryChars - 1).join('')}…`;
}

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}
