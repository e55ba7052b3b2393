// "Practical limit" target for bench/gateway: a bare Fastify route writing **the gateway's own
// result bytes**, captured by run.mjs from the running gateway at the start of the run (one file
// per JSON-RPC method: tools/list, tools/call echo). Only the JSON-RPC envelope is written per
// request, in the gateway's key order (`{"jsonrpc":"2.0","id":<id>,"result":<captured>}`), so the
// response is byte-identical to the gateway's. No MCP machinery at all: the ceiling any MCP
// server on Fastify/Node could approach for the same bytes on this machine.
//
// Env: PORT (0 = pick a free one), HOST (default 127.0.0.1), RAW_LIST_RESULT, RAW_CALL_RESULT
// (files holding the captured `result` bytes). Prints `listening on http://<host>:<port>` when
// ready; serves GET /healthz for readiness polls.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { serveFastifyBench } from './serve.mjs';

const listResult = readFileSync(required('RAW_LIST_RESULT'));
const callResult = readFileSync(required('RAW_CALL_RESULT'));
const head = Buffer.from('{"jsonrpc":"2.0","id":');
const resultKey = Buffer.from(',"result":');
const tail = Buffer.from('}');

function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is required (a file with the captured result bytes)`);
    process.exit(2);
  }
  return value;
}

function envelope(idJson, result) {
  return Buffer.concat([head, Buffer.from(idJson), resultKey, result, tail]);
}

function errorBody(id, code, message) {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } });
}

const app = Fastify({ logger: false });

app.get('/healthz', async () => ({ ok: true }));

app.post('/mcp', async (request, reply) => {
  reply.header('content-type', 'application/json');
  const body = request.body;
  if (typeof body !== 'object' || body === null || typeof body.method !== 'string') {
    reply.code(400);
    return errorBody(null, -32600, 'Invalid Request: body must be a JSON-RPC request object');
  }
  const idJson = JSON.stringify(body.id ?? null);
  if (body.method === 'tools/list') return envelope(idJson, listResult);
  if (body.method === 'tools/call' && body.params?.name === 'echo') return envelope(idJson, callResult);
  return errorBody(body.id ?? null, -32601, `Method not found: ${body.method}`);
});

await serveFastifyBench('raw-server', app);
