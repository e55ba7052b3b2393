import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/** The SEP-1034 schema: a default for every primitive type. */
export const SEP1034_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
};

/** `elicitation-sep1034-defaults`: legacy requests fail fast (server→client request); modern ones use MRTR. */
export class TestElicitationSep1034DefaultsTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicits a form whose fields all carry defaults (SEP-1034; needs server-to-client requests).',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_elicitation_sep1034_defaults', 'elicitation/create');
    const request = elicit('Please review and update the form fields', SEP1034_SCHEMA);
    requireCapabilities(ctx, [request]);
    const content = acceptedContent(ctx, 'form');
    return content === undefined ? Tool.inputRequired({ form: request }) : `Elicitation completed: action=accept, content=${JSON.stringify(content)}`;
  }
}
