#!/usr/bin/env bash
# Starts each image built by scripts/build-images.sh on the host network with a minimal
# environment and TRACING ON, and checks that it answers: the gateway's file tenants (tools/list),
# the registry's migrations + console + Swagger assets, auth's platform issuer (oidc-provider
# loaded), the chain-reader's tools/list; that each app's spans for a request reach the OTLP
# receiver and are found there by the request's trace id; then that the runtime user cannot write
# the app files.
#   DATABASE_URL=postgres://…/db REDIS_URL=redis://127.0.0.1:6379 ops/images/smoke.sh
# The OTLP receiver: by default ops/standins/otlp-standin.mjs (a STAND-IN for Tempo: OTLP/HTTP
# protobuf in, Tempo's GET /api/traces/<id> out) started here on 127.0.0.1:39174/39175. To export
# to a real collector and Tempo instead: OTLP_ENDPOINT=http://127.0.0.1:4318 TRACE_API=http://127.0.0.1:3210.
# Uses ports 39170-39175 on 127.0.0.1 and a throw-away Redis prefix.
set -euo pipefail
cd "$(dirname "$0")/../.."
db=${DATABASE_URL:?set DATABASE_URL to a database the registry and auth may migrate}
redis=${REDIS_URL:-redis://127.0.0.1:6379}
ns="sbsmoke$$:"
names=()
receiver=
cleanup() {
  for n in "${names[@]}"; do docker rm -f "$n" > /dev/null 2>&1 || true; done
  [ -z "$receiver" ] || kill "$receiver" 2> /dev/null || true
  # The registry's keys under this run's prefix (the database is the caller's to drop).
  if command -v redis-cli > /dev/null; then redis-cli -u "$redis" --scan --pattern "$ns*" | xargs -r redis-cli -u "$redis" del > /dev/null || true; fi
}
trap cleanup EXIT
if [ -z "${OTLP_ENDPOINT:-}" ]; then
  node_bin=node_modules/node/bin/node; [ -x "$node_bin" ] || node_bin=node
  STANDIN_ROLE=tempo STANDIN_OTLP_PORT=39174 STANDIN_API_PORT=39175 "$node_bin" ops/standins/otlp-standin.mjs > /dev/null &
  receiver=$!
  OTLP_ENDPOINT=http://127.0.0.1:39174 TRACE_API=http://127.0.0.1:39175
  echo "OTLP receiver: ops/standins/otlp-standin.mjs (a stand-in for Tempo) on $OTLP_ENDPOINT"
fi
trace_api=${TRACE_API:?set TRACE_API, the Tempo HTTP API, with OTLP_ENDPOINT}
run() { # name image env…
  local name=$1 image=$2; shift 2
  local args=(); for e in "$@"; do args+=(-e "$e"); done
  # Tracing on, as compose runs it (OTLP/HTTP protobuf); spans flushed every 200 ms; no OTLP metric push.
  docker run -d --rm --network host --name "$name" -e "OTEL_EXPORTER_OTLP_ENDPOINT=$OTLP_ENDPOINT" -e OTEL_METRICS_EXPORTER=none -e OTEL_BSP_SCHEDULE_DELAY=200 "${args[@]}" "$image" > /dev/null
  names+=("$name")
}
wait_for() { # url
  for _ in $(seq 1 480); do curl -sf "$1" > /dev/null && return 0; sleep 0.25; done
  echo "FAIL: $1 did not answer" >&2; return 1
}
new_trace() { node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))'; }
traceparent() { echo "00-$1-$(node -e 'console.log(require("crypto").randomBytes(8).toString("hex"))')-01"; }
# A span of <service> in trace <id>, found through the trace-by-id API (Tempo's GET /api/traces/<id>).
spans_of() { # trace-id service
  for _ in $(seq 1 120); do
    local n
    n=$(curl -sf "$trace_api/api/traces/$1" | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const t=JSON.parse(s);const n=(t.batches??[]).filter((b)=>(b.resource?.attributes??[]).some((a)=>a.key==="service.name"&&a.value.stringValue===process.argv[1])).flatMap((b)=>b.scopeSpans.flatMap((x)=>x.spans)).length;console.log(n)})' "$2" 2> /dev/null || true)
    if [ -n "$n" ] && [ "$n" -gt 0 ]; then echo "$n spans of $2 in trace $1"; return 0; fi
    sleep 0.25
  done
  echo "FAIL: no span of $2 in trace $1 at $trace_api" >&2; return 1
}
mcp_tools() { # url [traceparent]
  curl -sf -X POST "$1" ${2:+-H "traceparent: $2"} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2025-06-18' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).result.tools.length))'
}
read_only() { # container file
  docker exec "$1" node -e "try { require('fs').appendFileSync('$2', ''); console.log('WRITABLE'); process.exit(1) } catch (e) { console.log(e.code + ' as uid ' + process.getuid()) }"
}

run sb-smoke-gateway switchboard/gateway:dev SWITCHBOARD_ENV=development GATEWAY_PORT=39170 GATEWAY_TRACE_CLIENT_CONTEXT=trust
run sb-smoke-registry switchboard/registry:dev SWITCHBOARD_ENV=development REGISTRY_PORT=39171 "DATABASE_URL=$db" "REDIS_URL=$redis" "REDIS_NAMESPACE=$ns" INTERNAL_TOKEN=smoke-internal-token-0123456789 REGISTRY_OPERATOR_KEY=smoke-operator-key-0123456789
run sb-smoke-auth switchboard/auth:dev SWITCHBOARD_ENV=development AUTH_PORT=39172 AUTH_PUBLIC_URL=http://127.0.0.1:39172 "DATABASE_URL=$db" "REDIS_URL=$redis" INTERNAL_TOKEN=smoke-internal-token-0123456789 \
  CONSOLE_REDIRECT_URI=http://127.0.0.1:39171/console/callback CONSOLE_AUDIENCE=http://127.0.0.1:39171/v1 REGISTRY_INTERNAL_URL=http://127.0.0.1:39171
run sb-smoke-chain switchboard/chain-reader:dev CHAIN_READER_PORT=39173 "REDIS_URL=$redis" CHAIN_RPC_URLS_ETH=http://127.0.0.1:9/

# Each request carries a traceparent: its spans must be found by that trace id (set -e stops at the first failure).
wait_for http://127.0.0.1:39170/readyz
t=$(new_trace)
tools=$(mcp_tools http://127.0.0.1:39170/t/demo/mcp "$(traceparent "$t")")
spans=$(spans_of "$t" gateway)
echo "gateway      /readyz $(curl -s http://127.0.0.1:39170/readyz) · tools/list demo: $tools tools · $spans · app files: $(read_only sb-smoke-gateway /app/apps/gateway/dist/main.js)"
wait_for http://127.0.0.1:39171/readyz
t=$(new_trace)
console=$(curl -s -o /dev/null -w '%{http_code}' -H "traceparent: $(traceparent "$t")" http://127.0.0.1:39171/console/)
spans=$(spans_of "$t" registry)
echo "registry     /readyz postgres+redis $(curl -s http://127.0.0.1:39171/readyz | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const j=JSON.parse(s);console.log(j.status, j.postgres, j.redis)})') · /console/ $console · swagger-ui-bundle.js $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:39171/docs/assets/swagger-ui-bundle.js) · $spans · app files: $(read_only sb-smoke-registry /app/apps/registry/dist/main.js)"
wait_for http://127.0.0.1:39172/readyz
t=$(new_trace)
issuer=$(curl -s -H "traceparent: $(traceparent "$t")" http://127.0.0.1:39172/.well-known/oauth-authorization-server/platform | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).issuer))')
spans=$(spans_of "$t" auth)
echo "auth         /readyz $(curl -s http://127.0.0.1:39172/readyz) · platform AS metadata issuer $issuer · jwks keys $(curl -s http://127.0.0.1:39172/platform/jwks | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).keys.length))') · $spans · app files: $(read_only sb-smoke-auth /app/apps/auth/dist/main.js)"
wait_for http://127.0.0.1:39173/healthz
t=$(new_trace)
tools=$(mcp_tools http://127.0.0.1:39173/mcp "$(traceparent "$t")")
spans=$(spans_of "$t" chain-reader)
echo "chain-reader /healthz $(curl -s http://127.0.0.1:39173/healthz) · tools/list: $tools tools · $spans · app files: $(read_only sb-smoke-chain /app/apps/chain-reader/dist/main.js)"
# Exporting must not have crashed or logged a missing module in any app (issue #50).
for n in "${names[@]}"; do
  if docker logs "$n" 2>&1 | grep -q 'Cannot find module'; then echo "FAIL: $n logged 'Cannot find module'" >&2; docker logs "$n" 2>&1 | grep 'Cannot find module' | head -3 >&2; exit 1; fi
done
echo "PASS: every image served with tracing on and its spans were found by trace id"
