#!/usr/bin/env bash
# Starts each image built by scripts/build-images.sh on the host network with a minimal
# environment and checks that it answers: the gateway's file tenants (tools/list), the
# registry's migrations + console + Swagger assets, auth's platform issuer (oidc-provider loaded),
# the chain-reader's tools/list; then that the runtime user cannot write the app files.
#   DATABASE_URL=postgres://…/db REDIS_URL=redis://127.0.0.1:6379 ops/images/smoke.sh
# Uses ports 39170-39173 on 127.0.0.1 and a throw-away Redis prefix.
set -euo pipefail
db=${DATABASE_URL:?set DATABASE_URL to a database the registry and auth may migrate}
redis=${REDIS_URL:-redis://127.0.0.1:6379}
ns="sbsmoke$$:"
names=()
cleanup() {
  for n in "${names[@]}"; do docker rm -f "$n" > /dev/null 2>&1 || true; done
  # The registry's keys under this run's prefix (the database is the caller's to drop).
  if command -v redis-cli > /dev/null; then redis-cli -u "$redis" --scan --pattern "$ns*" | xargs -r redis-cli -u "$redis" del > /dev/null || true; fi
}
trap cleanup EXIT
run() { # name image env…
  local name=$1 image=$2; shift 2
  local args=(); for e in "$@"; do args+=(-e "$e"); done
  docker run -d --rm --network host --name "$name" -e OTEL_TRACES_EXPORTER=none "${args[@]}" "$image" > /dev/null
  names+=("$name")
}
wait_for() { # url
  for _ in $(seq 1 480); do curl -sf "$1" > /dev/null && return 0; sleep 0.25; done
  echo "FAIL: $1 did not answer" >&2; return 1
}
mcp_tools() { # url
  curl -sf -X POST "$1" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2025-06-18' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}' | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).result.tools.length))'
}
read_only() { # container file
  docker exec "$1" node -e "try { require('fs').appendFileSync('$2', ''); console.log('WRITABLE'); process.exit(1) } catch (e) { console.log(e.code + ' as uid ' + process.getuid()) }"
}

run sb-smoke-gateway switchboard/gateway:dev GATEWAY_PORT=39170
run sb-smoke-registry switchboard/registry:dev REGISTRY_PORT=39171 "DATABASE_URL=$db" "REDIS_URL=$redis" "REDIS_NAMESPACE=$ns" INTERNAL_TOKEN=smoke-internal-token-0123456789 REGISTRY_OPERATOR_KEY=smoke-operator-key-0123456789
run sb-smoke-auth switchboard/auth:dev AUTH_PORT=39172 AUTH_PUBLIC_URL=http://127.0.0.1:39172 "DATABASE_URL=$db" "REDIS_URL=$redis" INTERNAL_TOKEN=smoke-internal-token-0123456789 \
  CONSOLE_REDIRECT_URI=http://127.0.0.1:39171/console/callback CONSOLE_AUDIENCE=http://127.0.0.1:39171/v1 REGISTRY_INTERNAL_URL=http://127.0.0.1:39171
run sb-smoke-chain switchboard/chain-reader:dev CHAIN_READER_PORT=39173 "REDIS_URL=$redis" CHAIN_RPC_URLS_ETH=http://127.0.0.1:9/

wait_for http://127.0.0.1:39170/readyz
echo "gateway      /readyz $(curl -s http://127.0.0.1:39170/readyz) · tools/list demo: $(mcp_tools http://127.0.0.1:39170/t/demo/mcp) tools · app files: $(read_only sb-smoke-gateway /app/apps/gateway/dist/main.js)"
wait_for http://127.0.0.1:39171/readyz
echo "registry     /readyz postgres+redis $(curl -s http://127.0.0.1:39171/readyz | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const j=JSON.parse(s);console.log(j.status, j.postgres, j.redis)})') · /console/ $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:39171/console/) · swagger-ui-bundle.js $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:39171/docs/assets/swagger-ui-bundle.js) · app files: $(read_only sb-smoke-registry /app/apps/registry/dist/main.js)"
wait_for http://127.0.0.1:39172/readyz
echo "auth         /readyz $(curl -s http://127.0.0.1:39172/readyz) · platform AS metadata issuer $(curl -s http://127.0.0.1:39172/.well-known/oauth-authorization-server/platform | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).issuer))') · jwks keys $(curl -s http://127.0.0.1:39172/platform/jwks | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).keys.length))') · app files: $(read_only sb-smoke-auth /app/apps/auth/dist/main.js)"
wait_for http://127.0.0.1:39173/healthz
echo "chain-reader /healthz $(curl -s http://127.0.0.1:39173/healthz) · tools/list: $(mcp_tools http://127.0.0.1:39173/mcp) tools · app files: $(read_only sb-smoke-chain /app/apps/chain-reader/dist/main.js)"
