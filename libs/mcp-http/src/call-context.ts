import type { InputRequest, ToolContext } from '@switchboard/catalog';
import { LOG_LEVELS, encodeNotification, type LogLevel } from '@switchboard/protocol';
import type { ClientRequestBroker } from './client-request-broker';
import { askClient, canAskClient, mrtrInput } from './client-input';
import type { DispatchInput } from './dispatch-input';
import type { InvokeContext } from './invoke-context';
import type { StateSealer } from './state-sealer';

/**
 * What a tool, prompt or upstream is handed for one request: its tenant, caller and signal, how
 * it reports progress and logs (to the request's stream, at the level the client asked for),
 * and how it may ask the client (MRTR input, or a legacy session's server→client requests).
 */
export function invokeContextOf(
  input: DispatchInput,
  clientRequests: ClientRequestBroker | undefined,
  sealer: StateSealer | undefined,
): InvokeContext & ToolContext {
  const { context, sink } = input;
  const mrtr =
    context.era === 'modern' ? mrtrInput(input.message.params ?? {}) : canAskClient(clientRequests, input) ? { responses: {} } : undefined;
  const progressToken = context.progressToken;
  const minLevel = context.era === 'modern' ? context.logLevel : 'debug';
  const minIndex = minLevel === undefined ? Infinity : LOG_LEVELS.indexOf(minLevel);
  return {
    tenantId: input.target.tenantId,
    request: context,
    auth: input.auth,
    ...(mrtr === undefined ? {} : { input: mrtr }),
    ...(sealer === undefined
      ? {}
      : { state: { seal: (data) => sealer.seal('request-state', data), open: (token) => sealer.open('request-state', token) } }),
    ...(mrtr !== undefined && context.era === 'legacy'
      ? {
          askClient: async (method: string, params: Record<string, unknown>) => {
            const asked = await askClient(clientRequests!, input, { relayed: { method: method as InputRequest['method'], params } });
            if (typeof asked === 'string') throw new Error(asked);
            return asked.relayed;
          },
        }
      : {}),
    ...(sink?.canResume && sink.closeStream ? { closeStream: () => sink.closeStream!() } : {}),
    signal: input.signal,
    relaying: () => sink !== undefined && sink.relaying !== false,
    progress(progress: number, total?: number, message?: string) {
      if (progressToken === undefined || !sink) return;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      sink.notify(encodeNotification('notifications/progress', params));
    },
    resourceUpdated(uri: string) {
      sink?.notify(encodeNotification('notifications/resources/updated', { uri }));
    },
    log(level: LogLevel, data: unknown, logger?: string) {
      if (!sink || LOG_LEVELS.indexOf(level) < minIndex) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      sink.notify(encodeNotification('notifications/message', params));
    },
  };
}
