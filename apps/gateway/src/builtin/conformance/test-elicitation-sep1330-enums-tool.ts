import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

/** The SEP-1330 schema: all five enum shapes. */
export const SEP1330_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Titled single-select',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled enum',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: { type: 'array', description: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

/** `elicitation-sep1330-enums`: legacy requests fail fast (server→client request); modern ones use MRTR. */
export class TestElicitationSep1330EnumsTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicits a form with every enum variant (SEP-1330; needs server-to-client requests).',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    if (!ctx.input) throw statelessRefusal('test_elicitation_sep1330_enums', 'elicitation/create');
    const request = elicit('Please review and update the form fields', SEP1330_SCHEMA);
    requireCapabilities(ctx, [request]);
    const content = acceptedContent(ctx, 'form');
    return content === undefined ? Tool.inputRequired({ form: request }) : `Elicitation completed: action=accept, content=${JSON.stringify(content)}`;
  }
}
