import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/** What `test_elicitation` asks the user for (the schema the suite checks). */
export const ELICITATION_SCHEMA = {
  type: 'object',
  properties: {
    username: { type: 'string', description: "User's response" },
    email: { type: 'string', description: "User's email address" },
  },
  required: ['username', 'email'],
};

/** `tools-call-elicitation`: asks for a username and e-mail. Legacy requests fail fast; modern ones use MRTR. */
export class TestElicitationTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_elicitation',
    description: 'Asks the user for a username and e-mail address (MRTR at 2026-07-28; unavailable on legacy requests).',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
      additionalProperties: false,
    },
  };

  static override payload(args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_elicitation', 'elicitation/create');
    const request = elicit(args.message as string, ELICITATION_SCHEMA);
    requireCapabilities(ctx, [request]);
    const content = acceptedContent(ctx, 'user_info');
    return content === undefined ? Tool.inputRequired({ user_info: request }) : `User response: action=accept, content=${JSON.stringify(content)}`;
  }
}
