// "Practical limit" for bench/gateway's proxied workload: a bare Fastify route that forwards the
// request body, as bytes, to the SDK-built upstream over one undici keep-alive pool (`dispatch`
// with a handler that only collects the body, the cheapest undici path) and writes the upstream's
// bytes back, on a session run.mjs opened for it. No MCP machinery, no parsing, no validation,
// no spans, no limits: one HTTP server request plus one HTTP client request, the floor any Node
// proxy pays for the same call on this machine. The gateway's proxied row is read against it as well as against the upstream direct.
//
// Env: PORT (0 = pick a free one), HOST (default 127.0.0.1), UPSTREAM_URL (the upstream's MCP
// URL), UPSTREAM_HEADERS (JSON: the request headers of a session run.mjs opened for it). Prints
// `listening on http://<host>:<port>` when ready; serves GET /healthz for readiness polls.
import Fastify from 'fastify';
import { Pool } from 'undici';
import { serveFastifyBench } from './serve.mjs';

const upstreamUrl = new URL(process.env.UPSTREAM_URL ?? '');
const pool = new Pool(upstreamUrl.origin, { connections: 64, pipelining: 1 });
const sessionHeaders = JSON.parse(process.env.UPSTREAM_HEADERS ?? '{}');

/** One POST to the upstream: resolves with { status, contentType, body }. */
function forward(body) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let status = 0;
    let contentType = 'application/json';
    pool.dispatch(
      { origin: upstreamUrl.origin, path: upstreamUrl.pathname, method: 'POST', headers: sessionHeaders, body },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode, responseHeaders) {
          status = statusCode;
          if (typeof responseHeaders['content-type'] === 'string') contentType = responseHeaders['content-type'];
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ status, contentType, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1 << 20 }, (_request, body, done) => done(null, body));
app.get('/healthz', async () => ({ ok: true }));
app.post('/mcp', async (request, reply) => {
  const answer = await forward(request.body);
  reply.code(answer.status).header('content-type', answer.contentType);
  return answer.body;
});

await serveFastifyBench('raw-proxy', app);
