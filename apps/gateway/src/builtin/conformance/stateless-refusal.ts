import { ToolError } from '@switchboard/catalog';

/**
 * The error of a fixture that needs input from the client (`sampling/createMessage`,
 * `elicitation/create`, `roots/list`) on a legacy request: a stateless server cannot send a
 * server→client request there (the client's reply would arrive as a new POST, possibly on
 * another replica, with no session to route it to), so the tool fails at once instead of
 * leaving the client waiting. Modern (2026-07-28) requests get an MRTR InputRequiredResult.
 */
export function statelessRefusal(tool: string, method: string): ToolError {
  return new ToolError(
    `${tool} needs a server-to-client ${method} request, which this stateless server cannot send on a legacy ` +
      `(2025-era) request; call it at protocol 2026-07-28, where it asks through an InputRequiredResult.`,
    { tool, method },
  );
}
