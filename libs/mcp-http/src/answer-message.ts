import { ErrorCode, McpError, classifyRequest, isModernVersion, type ClassifiedMessage, type JsonRpcResponse } from '@switchboard/protocol';
import { answerRequest } from './answer-request';
import type { EdgeCall } from './edge-call';
import { toolDenied } from './edge-guard';
import { ResponseChannel } from './response-channel';

/** Step 4 (one message): a request is answered on its own channel; a notification acknowledged; a response routed to the call that waits. */
export async function answerMessage(call: EdgeCall, item: ClassifiedMessage): Promise<void> {
  const edge = call.edge;
  switch (item.type) {
    case 'invalid':
      return edge.refuse(call, 400, item.error, item.id);
    case 'response':
      return deliverResponse(call, item.message);
    case 'notification':
      try {
        classifyRequest(item.message, call.headers);
      } catch (err) {
        return edge.refuseWire(call, err);
      }
      call.code(202).send();
      return;
    case 'request': {
      const denied = toolDenied(call, item.message);
      if (denied) {
        call.code(denied.status).setHeaders(denied.headers).send(denied.body);
        edge.refused(call, 'insufficient_scope');
        return;
      }
      const channel = new ResponseChannel(call, edge.notifyMaxBytesPerCall);
      const { body, length, status } = await answerRequest(call, item.message, channel);
      channel.finish(body, status, length);
      return;
    }
  }
}

/** The answer to one of our server→client requests: routed to the call that waits (maybe on another replica). */
async function deliverResponse(call: EdgeCall, message: JsonRpcResponse): Promise<void> {
  const edge = call.edge;
  // 2026-07-28 forbids clients from sending responses (there are no server requests to answer).
  if (isModernVersion(call.header('mcp-protocol-version'))) {
    return edge.refuse(call, 400, new McpError(ErrorCode.InvalidRequest, 'JSON-RPC responses are not accepted at protocol 2026-07-28'));
  }
  const answerOf = 'error' in message ? { error: message.error } : { result: message.result };
  const outcome = await edge.clientRequests.deliver(`${call.target.tenantId}\n${call.auth?.subject ?? ''}`, message.id, answerOf);
  if (outcome === 'delivered') {
    call.code(202).send();
    return;
  }
  const id = JSON.stringify(message.id).slice(0, 80);
  const why =
    outcome === 'expired'
      ? `The server-to-client request id ${id} has expired`
      : `No server-to-client request with id ${id} is waiting for an answer (it ended, timed out, or was not sent to this caller)`;
  return edge.refuse(call, 404, new McpError(ErrorCode.InvalidRequest, why));
}
