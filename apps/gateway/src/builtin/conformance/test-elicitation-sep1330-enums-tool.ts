import { Tool, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
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
} as const;

/** `elicitation-sep1330-enums`: declared as the suite expects; fails fast (server→client request). */
export class TestElicitationSep1330EnumsTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_elicitation_sep1330_enums',
    description: 'Elicits a form with every enum variant (SEP-1330; needs server-to-client requests).',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(): never {
    throw statelessRefusal('test_elicitation_sep1330_enums', 'elicitation/create');
  }
}
