import { ToolError } from '@switchboard/catalog';

/**
 * The error of a fixture that needs a server→client request (`sampling/createMessage`,
 * `elicitation/create`): a stateless server has nowhere to route the client's answer (it
 * arrives as a new POST, possibly on another replica), so the tool fails at once instead of
 * leaving the client waiting for a request that never comes.
 */
export function statelessRefusal(tool: string, method: string): ToolError {
  return new ToolError(
    `${tool} needs a server-to-client ${method} request, which this stateless server cannot send ` +
      `(the client's reply would arrive on a new HTTP request with no session to route it to).`,
    { tool, method },
  );
}
