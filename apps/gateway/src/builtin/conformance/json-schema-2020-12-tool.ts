import { Tool, type ToolDefinition } from '@switchboard/catalog';

/**
 * `json-schema-2020-12`: a raw 2020-12 input schema that must be listed unchanged —
 * `$schema`, `$defs` (with an `$anchor`), `allOf`/`anyOf`, `if`/`then`/`else` and
 * `additionalProperties: false` (SEP-1613, SEP-2106).
 */
export class JsonSchema202012Tool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: {
        address: {
          $anchor: 'addressDef',
          type: 'object',
          properties: { street: { type: 'string' }, city: { type: 'string' } },
        },
      },
      properties: {
        name: { type: 'string' },
        address: { $ref: '#/$defs/address' },
        contactMethod: { type: 'string', enum: ['phone', 'email'] },
        phone: { type: 'string' },
        email: { type: 'string' },
      },
      allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
      if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
      then: { required: ['phone'] },
      else: { required: ['email'] },
      additionalProperties: false,
    },
  };

  static override payload(args: Record<string, unknown>): { received: Record<string, unknown> } {
    return { received: args };
  }
}
