// STAND-IN for the OpenTelemetry Collector and Grafana Tempo, for machines where their images
// cannot be pulled and Debian packages neither (ops/standins/build.sh). Not a collector, not
// Tempo: OTLP/HTTP only (protobuf or JSON; no gRPC), traces kept in memory (bounded), no
// spanmetrics or service graph, no TraceQL, nothing survives a restart.
//   collector role (compose passes --config=…): OTLP/HTTP on :4318, traces forwarded to
//     http://tempo:4318/v1/traces as received, metrics and logs accepted and dropped; a
//     Prometheus endpoint on :8889 counting what it forwarded.
//   tempo role (compose passes -config.file=…): OTLP/HTTP on :4318, kept by trace id; on :3200
//     GET /ready and Tempo's trace-by-id API, GET /api/traces/<hex id>, answering in Tempo's
//     JSON shape ({"batches":[{resource, scopeSpans:[{scope, spans}]}]}, ids base64) or 404.
// STANDIN_ROLE=collector|tempo overrides the guess from the arguments; STANDIN_OTLP_PORT,
// STANDIN_API_PORT (tempo) and STANDIN_METRICS_PORT (collector) move the ports (host-network runs).
import { createServer } from 'node:http';

const args = process.argv.slice(2);
const role = process.env.STANDIN_ROLE ?? (args.some((a) => a.startsWith('-config.file')) ? 'tempo' : 'collector');
const TEMPO_OTLP = process.env.STANDIN_TEMPO_OTLP ?? 'http://tempo:4318/v1/traces';
const MAX_TRACES = 20_000;
const MAX_BODY = 16 * 1024 * 1024;

// --- protobuf wire format: just enough of opentelemetry/proto/collector/trace/v1 to index spans ---
function* fields(buf) {
  let i = 0;
  const varint = () => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = buf[i++];
      if (b === undefined) throw new Error('truncated varint');
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      shift += 7n;
    }
  };
  while (i < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wt = key & 7;
    if (wt === 0) yield { no, value: varint() };
    else if (wt === 1) yield { no, value: buf.subarray(i, (i += 8)) };
    else if (wt === 2) {
      const len = Number(varint());
      yield { no, value: buf.subarray(i, (i += len)) };
    } else if (wt === 5) yield { no, value: buf.subarray(i, (i += 4)) };
    else throw new Error(`unsupported wire type ${wt}`);
  }
}
const str = (b) => b.toString('utf8');
function anyValue(buf) {
  for (const f of fields(buf)) {
    if (f.no === 1) return { stringValue: str(f.value) };
    if (f.no === 2) return { boolValue: f.value !== 0n };
    if (f.no === 3) return { intValue: BigInt.asIntN(64, f.value).toString() };
    if (f.no === 4) return { doubleValue: f.value.readDoubleLE(0) };
  }
  return {};
}
function keyValue(buf) {
  const kv = { key: '', value: {} };
  for (const f of fields(buf)) {
    if (f.no === 1) kv.key = str(f.value);
    else if (f.no === 2) kv.value = anyValue(f.value);
  }
  return kv;
}
const KINDS = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
];
function span(buf) {
  const s = { traceId: '', spanId: '', name: '', kind: KINDS[0], attributes: [], status: {} };
  for (const f of fields(buf)) {
    if (f.no === 1) s.traceId = f.value.toString('base64');
    else if (f.no === 2) s.spanId = f.value.toString('base64');
    else if (f.no === 4 && f.value.length) s.parentSpanId = f.value.toString('base64');
    else if (f.no === 5) s.name = str(f.value);
    else if (f.no === 6) s.kind = KINDS[Number(f.value)] ?? KINDS[0];
    else if (f.no === 7) s.startTimeUnixNano = f.value.readBigUInt64LE(0).toString();
    else if (f.no === 8) s.endTimeUnixNano = f.value.readBigUInt64LE(0).toString();
    else if (f.no === 9) s.attributes.push(keyValue(f.value));
    else if (f.no === 15)
      for (const g of fields(f.value))
        if (g.no === 3) s.status = { code: ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'][Number(g.value)] };
  }
  return s;
}
/** ExportTraceServiceRequest (protobuf) -> resourceSpans in OTLP JSON shape, ids base64 as Tempo answers them. */
function decodeProtobuf(buf) {
  const out = [];
  for (const rs of fields(buf)) {
    if (rs.no !== 1) continue;
    const batch = { resource: { attributes: [] }, scopeSpans: [] };
    for (const f of fields(rs.value)) {
      if (f.no === 1) for (const r of fields(f.value)) if (r.no === 1) batch.resource.attributes.push(keyValue(r.value));
      if (f.no === 2) {
        const ss = { scope: {}, spans: [] };
        for (const g of fields(f.value)) {
          if (g.no === 1) for (const sc of fields(g.value)) if (sc.no === 1) ss.scope.name = str(sc.value);
          if (g.no === 2) ss.spans.push(span(g.value));
        }
        batch.scopeSpans.push(ss);
      }
    }
    out.push(batch);
  }
  return out;
}
/** OTLP JSON (ids hex) -> the same shape (ids base64). */
function decodeJson(text) {
  const b64 = (hex) => (hex ? Buffer.from(hex, 'hex').toString('base64') : undefined);
  return (JSON.parse(text).resourceSpans ?? []).map((rs) => ({
    resource: rs.resource ?? { attributes: [] },
    scopeSpans: (rs.scopeSpans ?? []).map((ss) => ({
      scope: ss.scope ?? {},
      spans: (ss.spans ?? []).map((s) => ({ ...s, traceId: b64(s.traceId), spanId: b64(s.spanId), parentSpanId: b64(s.parentSpanId) })),
    })),
  }));
}

// --- the store (tempo role): trace id (hex) -> batches, oldest dropped past MAX_TRACES ---
const traces = new Map();
function keep(batches) {
  for (const batch of batches) {
    for (const ss of batch.scopeSpans) {
      for (const s of ss.spans) {
        const id = Buffer.from(s.traceId, 'base64').toString('hex');
        let t = traces.get(id);
        if (!t) {
          t = new Map();
          traces.set(id, t);
          if (traces.size > MAX_TRACES) traces.delete(traces.keys().next().value);
        }
        // One batch per (resource, scope) within a trace, as Tempo groups them.
        const key = JSON.stringify([batch.resource, ss.scope]);
        if (!t.has(key)) t.set(key, { resource: batch.resource, scopeSpans: [{ scope: ss.scope, spans: [] }] });
        t.get(key).scopeSpans[0].spans.push(s);
      }
    }
  }
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

let forwarded = 0;
let forwardFailures = 0;
let received = 0;

const otlp = createServer(async (req, res) => {
  try {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const body = await readBody(req);
    const type = req.headers['content-type'] ?? 'application/x-protobuf';
    if (req.url === '/v1/traces') {
      received += 1;
      if (role === 'tempo') keep(type.includes('json') ? decodeJson(body.toString('utf8')) : decodeProtobuf(body));
      else {
        const r = await fetch(TEMPO_OTLP, { method: 'POST', headers: { 'content-type': type }, body }).catch(() => undefined);
        if (r?.ok) forwarded += 1;
        else forwardFailures += 1;
      }
    }
    res
      .writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' })
      .end(type.includes('json') ? '{}' : undefined);
  } catch (err) {
    res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err.message));
  }
});
const OTLP_PORT = Number(process.env.STANDIN_OTLP_PORT ?? 4318);
otlp.listen(OTLP_PORT, '0.0.0.0');

if (role === 'tempo') {
  createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://tempo');
    if (url.pathname === '/ready') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ready');
    const m = /^\/api\/traces\/([0-9a-fA-F]{1,32})$/.exec(url.pathname);
    if (m) {
      const t = traces.get(m[1].toLowerCase().padStart(32, '0'));
      if (!t) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('trace not found');
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ batches: [...t.values()] }));
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found (otlp-standin serves /ready and /api/traces/<id> only)');
  }).listen(Number(process.env.STANDIN_API_PORT ?? 3200), '0.0.0.0');
} else {
  createServer((req, res) => {
    if (req.url !== '/metrics') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      .end(
        [
          '# HELP otlp_standin_trace_exports_total OTLP trace exports received (stand-in collector).',
          '# TYPE otlp_standin_trace_exports_total counter',
          `otlp_standin_trace_exports_total ${received}`,
          '# TYPE otlp_standin_trace_exports_forwarded_total counter',
          `otlp_standin_trace_exports_forwarded_total ${forwarded}`,
          '# TYPE otlp_standin_trace_exports_failed_total counter',
          `otlp_standin_trace_exports_failed_total ${forwardFailures}`,
          '',
        ].join('\n'),
      );
  }).listen(Number(process.env.STANDIN_METRICS_PORT ?? 8889), '0.0.0.0');
}
process.stdout.write(
  `otlp-standin (${role}): OTLP/HTTP on :${OTLP_PORT}${role === 'tempo' ? `, trace by id on :${process.env.STANDIN_API_PORT ?? 3200}` : `, forwarding traces to ${TEMPO_OTLP}, metrics on :8889`}\n`,
);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0));
