#!/usr/bin/env bash
# Checks the two gateway images scripts/build-images.sh makes:
# - switchboard/gateway:dev, run with exactly docker-compose.yml's gateway environment (host
#   network; compose's service names resolve to 127.0.0.1), serves the file tenants' fixture
#   catalogs: tools/list on /t/demo/mcp, conformance tool calls, and an McpError thrown inside
#   libs/fixtures reaching the client as its own JSON-RPC code (one copy of the protocol classes);
# - switchboard/gateway:prod carries no fixtures and refuses that environment, naming them.
#   REDIS_URL=redis://127.0.0.1:6379 ops/images/smoke-gateway-variants.sh
# Uses a free port on 127.0.0.1 and a throw-away Redis prefix; the registry, auth and chain-reader
# need not run (the gateway serves its file tenants without them).
set -euo pipefail
cd "$(dirname "$0")/../.."
redis=${REDIS_URL:-redis://127.0.0.1:6379}
name="sb-smoke-gateway-dev-$$"
env_file=$(mktemp)
trap 'docker rm -f "$name" > /dev/null 2>&1 || true; rm -f "$env_file"' EXIT
# `${VAR:-default}` -> default, as `docker compose up` resolves it with nothing set.
node -e '
  const { parse } = require("yaml");
  const env = parse(require("fs").readFileSync("docker-compose.yml", "utf8"), { merge: true }).services.gateway.environment;
  for (const [k, v] of Object.entries(env)) console.log(`${k}=${String(v).replace(/\$\{[A-Z0-9_]+:-([^}]*)\}/g, "$1")}`);
' > "$env_file"
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
hosts=(); for h in redis registry auth chain-reader otel-collector; do hosts+=(--add-host "$h:127.0.0.1"); done
# Tracing stays on as compose sets it (OTEL_EXPORTER_OTLP_ENDPOINT): the image must load the SDK
# (issue #50); with no collector on 127.0.0.1:4318 the exports fail and are dropped.
overrides=(-e "GATEWAY_PORT=$port" -e "REDIS_URL=$redis" -e "REDIS_NAMESPACE=sbsmoke$$:")

post() { # path body [headers…]
  local p=$1 body=$2; shift 2
  curl -s -w ' HTTP %{http_code}' -X POST "http://127.0.0.1:$port$p" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' "$@" -d "$body"
}
legacy=(-H 'mcp-protocol-version: 2025-06-18')

docker run -d --rm --network host --name "$name" "${hosts[@]}" --env-file "$env_file" "${overrides[@]}" switchboard/gateway:dev > /dev/null
for _ in $(seq 1 240); do curl -sf "http://127.0.0.1:$port/readyz" > /dev/null && break; sleep 0.25; done
curl -sf "http://127.0.0.1:$port/readyz" > /dev/null || { docker logs "$name" >&2; echo "FAIL: switchboard/gateway:dev did not get ready" >&2; exit 1; }

echo "switchboard/gateway:dev (compose's environment, port $port)"
echo "  tools/list /t/demo/mcp: $(curl -s -X POST "http://127.0.0.1:$port/t/demo/mcp" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' "${legacy[@]}" -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const t=JSON.parse(s).result.tools.map((x)=>x.name);console.log(t.length+" tools: "+t.slice(0,4).join(", ")+", …")})')"
echo "  tools/call test_simple_text: $(post /t/conformance/mcp '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}' "${legacy[@]}")"
# ToolError (libs/catalog) thrown by a fixture: `instanceof ToolError` in the gateway's copy makes it isError content.
echo "  tools/call test_missing_capability (2025-06-18): $(post /t/conformance/mcp '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_missing_capability","arguments":{}}}' "${legacy[@]}")"
# McpError (libs/protocol) thrown by a fixture: `instanceof McpError` keeps its code (−32021) and HTTP 400.
modern='{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_missing_capability","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
answer=$(post /t/conformance/mcp "$modern" -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/call' -H 'mcp-name: test_missing_capability')
echo "  tools/call test_missing_capability (2026-07-28): $answer"
case "$answer" in *'"code":-32021'*'HTTP 400') ;; *) echo "FAIL: the fixture's McpError lost its code (two copies of @switchboard/protocol?)" >&2; exit 1 ;; esac
docker rm -f "$name" > /dev/null

echo "switchboard/gateway:prod"
docker run --rm --entrypoint node switchboard/gateway:prod -e '
  let resolved; try { resolved = require.resolve("@switchboard/fixtures") } catch (e) { resolved = e.code }
  const fixtureCode = (require("fs").readFileSync("apps/gateway/dist/main.js", "utf8").match(/test_missing_capability/g) || []).length;
  console.log(`  @switchboard/fixtures: ${resolved} · conformance fixture code in the bundle: ${fixtureCode} occurrences`);
  if (resolved !== "MODULE_NOT_FOUND" || fixtureCode) process.exit(1);
'
set +e
refusal=$(docker run --rm --network host "${hosts[@]}" --env-file "$env_file" "${overrides[@]}" switchboard/gateway:prod 2>&1 | grep -v '^{')
status=$?
set -e
echo "  with compose's environment: $refusal"
case "$refusal" in *'needs the development fixtures'*) ;; *) echo "FAIL: switchboard/gateway:prod did not refuse the fixture tenants (status $status)" >&2; exit 1 ;; esac
for tag in prod dev; do
  echo "switchboard/gateway:$tag $(docker image inspect -f '{{.Size}}' "switchboard/gateway:$tag" | awk '{printf "%.1f MB", $1 / 1000000}')"
done
