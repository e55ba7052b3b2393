import { Tool, type InputRequired, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { pause } from './pause';
import { acceptedContent, elicit, requireCapabilities } from './input-requests';
import { statelessRefusal } from './stateless-refusal';

const CONFIRM_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };

/**
 * Tasks extension fixture (`tasks-mrtr-input`): "locates" the file for half a second (so the
 * call becomes a task), then asks for confirmation through one elicitation; inside a task
 * that parks it `input_required` until `tasks/update` answers.
 */
export class ConfirmDeleteTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'confirm_delete',
    description: 'Asks the user to confirm deleting `filename` (no file is touched).',
    inputSchema: { type: 'object', properties: { filename: { type: 'string', maxLength: 200 } }, required: ['filename'] },
    taskSupport: 'optional',
  };

  static override async payload(args: Record<string, unknown>, ctx: ToolContext): Promise<string | InputRequired> {
    if (!ctx.input) throw statelessRefusal('confirm_delete', 'elicitation/create');
    const request = elicit(`Delete ${String(args.filename)}?`, CONFIRM_SCHEMA);
    requireCapabilities(ctx, [request]);
    const answer = acceptedContent(ctx, 'confirm');
    if (answer === undefined) {
      await pause(500, ctx.signal);
      return Tool.inputRequired({ confirm: request });
    }
    return answer.confirm === true ? `Deleted ${String(args.filename)}` : `Kept ${String(args.filename)}`;
  }
}
