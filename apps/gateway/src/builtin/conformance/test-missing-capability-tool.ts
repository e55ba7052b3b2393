import { Tool, ToolError, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { requireCapabilities, sample, sampledText } from './input-requests';

/**
 * `server-stateless` (undeclared capability): needs sampling; a modern client that did not
 * declare `sampling` in its per-request `_meta` gets −32021 with HTTP 400.
 */
export class TestMissingCapabilityTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_missing_capability',
    description: 'Needs the sampling client capability; refused with -32021 when the client did not declare it.',
    inputSchema: { ...NO_ARGS },
  };

  static override payload(_args: Record<string, unknown>, ctx: ToolContext): string | InputRequired {
    // Legacy capabilities were declared once at initialize; a stateless server does not know them.
    if (!ctx.input) throw new ToolError('test_missing_capability checks per-request client capabilities, which only 2026-07-28 requests carry.');
    const request = sample('Say hello', 20);
    requireCapabilities(ctx, [request]);
    const text = sampledText(ctx, 'hello');
    return text === undefined ? Tool.inputRequired({ hello: request }) : `Sampled: ${text}`;
  }
}
