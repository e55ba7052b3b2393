import { Tool, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
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
} as const;

/** `elicitation-sep1034-defaults`: declared as the suite expects; fails fast (server→client request). */
export class TestElicitationSep1034DefaultsTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_elicitation_sep1034_defaults',
    description: 'Elicits a form whose fields all carry defaults (SEP-1034; needs server-to-client requests).',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): never {
    throw statelessRefusal('test_elicitation_sep1034_defaults', 'elicitation/create');
  }
}
