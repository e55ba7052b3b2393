import type { EdgeReply, EdgeRequest } from './edge-http';
import { ErrorCode, McpError, classifyRequest, isModernVersion, type ClassifiedMessage, type JsonRpcResponse } from '@switchboard/protocol';
import { answerRequest } from './answer-request';
import { toolDenied } from './edge-guard';
import { header, type McpEdge } from './mcp-edge';
import type { AuthGranted, McpTarget } from './mcp-target';
import { ResponseChannel } from './response-channel';

/** Step 5 (one message): a request is answered on its own channel; a notification acknowledged; a response routed to the call that waits. */
export async function answerMessage(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget, item: ClassifiedMessage, auth: AuthGranted | undefined): Promise<void> {
  switch (item.type) {
    case 'invalid':
      return edge.refuse(req, reply, 400, target.tenantId, item.error, item.id);
    case 'response':
      return deliverResponse(edge, req, reply, target, item.message, auth);
    case 'notification':
      try {
        classifyRequest(item.message, req.headers);
      } catch (err) {
        return edge.refuseWire(req, reply, target.tenantId, err);
      }
      void reply.code(202).send();
      return;
    case 'request': {
      const denied = toolDenied(edge, target, item.message, auth);
      if (denied) {
        void reply.code(denied.status).headers(denied.headers).send(denied.body);
        edge.refused(req, reply, target.tenantId, 'insufficient_scope');
        return;
      }
      const channel = new ResponseChannel(reply, edge.notifyMaxBytesPerCall);
      const { body, length, status } = await answerRequest(edge, { req, reply, target, message: item.message, channel, auth });
      channel.finish(body, status, length);
      return;
    }
  }
}

/** The answer to one of our server→client requests: routed to the call that waits (maybe on another replica). */
async function deliverResponse(edge: McpEdge, req: EdgeRequest, reply: EdgeReply, target: McpTarget, message: JsonRpcResponse, auth: AuthGranted | undefined): Promise<void> {
  // 2026-07-28 forbids clients from sending responses (there are no server requests to answer).
  if (isModernVersion(header(req, 'mcp-protocol-version'))) {
    return edge.refuse(req, reply, 400, target.tenantId, new McpError(ErrorCode.InvalidRequest, 'JSON-RPC responses are not accepted at protocol 2026-07-28'));
  }
  const answerOf = 'error' in message ? { error: message.error } : { result: message.result };
  const outcome = await edge.clientRequests.deliver(`${target.tenantId}\n${auth?.subject ?? ''}`, message.id, answerOf);
  if (outcome === 'delivered') {
    void reply.code(202).send();
    return;
  }
  const id = JSON.stringify(message.id).slice(0, 80);
  const why = outcome === 'expired' ? `The server-to-client request id ${id} has expired` : `No server-to-client request with id ${id} is waiting for an answer (it ended, timed out, or was not sent to this caller)`;
  return edge.refuse(req, reply, 404, target.tenantId, new McpError(ErrorCode.InvalidRequest, why));
}
