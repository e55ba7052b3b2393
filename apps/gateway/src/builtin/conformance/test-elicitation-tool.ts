import { Tool, type ToolDefinition } from '@switchboard/catalog';
import { statelessRefusal } from './stateless-refusal';

/** What `test_elicitation` would ask the user for (the schema the suite checks). */
export const ELICITATION_SCHEMA = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
} as const;

/** `tools-call-elicitation`: declared as the suite expects; fails fast because elicitation needs a server→client request. */
export class TestElicitationTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_elicitation',
    description: 'Asks the user for a username and e-mail address (needs server-to-client requests; unavailable on this stateless server).',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
      additionalProperties: false,
    },
  };

  static override payload(): never {
    throw statelessRefusal('test_elicitation', 'elicitation/create');
  }
}
