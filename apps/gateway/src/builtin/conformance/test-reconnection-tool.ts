import { Tool, type ToolContext, type ToolDefinition } from '@switchboard/catalog';
import { NO_ARGS } from './fixture-media';
import { pause } from './pause';

/** Lets the client's reconnection (GET + Last-Event-ID) start before the result is stored. */
const AFTER_CLOSE_MS = 100;

/**
 * `server-sse-polling` (SEP-1699): closes the call's SSE stream right after its priming event,
 * then answers; the client gets the result by resuming with `Last-Event-ID` (from any replica,
 * the events are in Redis). Without a resumable stream it just answers.
 */
export class TestReconnectionTool extends Tool {
  static override readonly definition: ToolDefinition = {
    name: 'test_reconnection',
    description: 'Closes the SSE stream mid-call; the result arrives after the client reconnects with Last-Event-ID.',
    inputSchema: { ...NO_ARGS },
  };

  static override async payload(_args: Record<string, unknown>, ctx: ToolContext): Promise<string> {
    if (ctx.closeStream) {
      ctx.closeStream();
      await pause(AFTER_CLOSE_MS, ctx.signal);
    }
    return 'Reconnected: this result was delivered after the stream was closed.';
  }
}
