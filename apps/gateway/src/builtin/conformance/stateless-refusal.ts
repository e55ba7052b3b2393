import { ToolError } from '@switchboard/catalog';

/**
 * The error of a fixture that needs input from the client (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`) on a legacy request without a session declaring client
 * capabilities: nothing tells the server the client can answer, so the tool fails at once
 * instead of leaving the client waiting. With such a session the transport sends real
 * server→client requests; modern (2026-07-28) requests get an MRTR InputRequiredResult.
 */
export function statelessRefusal(tool: string, method: string): ToolError {
  return new ToolError(
    `${tool} needs a server-to-client ${method} request; on a legacy (2025-era) request that needs the ` +
      `Mcp-Session-Id from initialize declaring the capability (or call it at protocol 2026-07-28, where it asks through an InputRequiredResult).`,
    { tool, method },
  );
}
