#!/usr/bin/env bash
# Boots the real docker-compose.yml on a Docker engine, tracing on, and checks what an operator
# relies on: tools/list on every tenant (demo, conformance, acme; `secure` answers 401 with its
# OAuth metadata), the console, the platform's and the tenant's authorization-server metadata, a
# request's trace found in Tempo by its trace id, every Prometheus target up, the gateway serving
# again after `restart`, then `down -v`.
#   scripts/compose-smoke.sh                      build the images, then boot and check
#   SKIP_BUILD=1 scripts/compose-smoke.sh         use the images already built
#   IMAGE_PREFIX=switchboard-standin/ …           third-party images from a mirror or the stand-ins
# It runs as its own compose project (sbsmoke) on its own host ports (COMPOSE_SMOKE_PORT_BASE,
# default 23000: gateway 23000, registry 23100, auth 23200, …) so a running stack is not touched.
# Exit codes — never a silent pass:
#   0 every service ran and every check passed
#   1 a check failed (the failing check is named)
#   3 NOT RUN: no Docker engine, no compose CLI, or third-party images not obtainable (named)
#   4 PASSED WITHOUT some services: every check passed, but the services named (Grafana when
#     its image cannot be had) did not run
set -euo pipefail
cd "$(dirname "$0")/.."
project=${COMPOSE_SMOKE_PROJECT:-sbsmoke}
base_port=${COMPOSE_SMOKE_PORT_BASE:-23000}
# Services the stack can be checked without (nothing else depends on them); others are required.
optional_services=(grafana)

not_run() { echo "compose-smoke: NOT RUN: $*" >&2; exit 3; }
fail() { echo "compose-smoke: FAIL: $*" >&2; exit 1; }
step() { printf 'compose-smoke: %-58s %s\n' "$1" "$2"; }
started=$(date +%s)

# 1. What it needs: an engine and a compose CLI (v2 plugin, else v1).
command -v docker > /dev/null || not_run 'no docker CLI'
docker info > /dev/null 2>&1 || not_run 'no running Docker engine (docker info fails; start dockerd, docs/operations.md)'
if docker compose version > /dev/null 2>&1; then compose_cli=(docker compose)
elif command -v docker-compose > /dev/null; then compose_cli=(docker-compose)
else not_run 'no compose CLI (the Compose v2 plugin or docker-compose)'; fi

# 2. Its own .env: .env.example with this run's host ports and the public URLs that follow them.
env_file=$(mktemp) scratch=$(mktemp -d)
trap 'rm -rf "$env_file" "$scratch"' EXIT
p() { echo $((base_port + $1)); }
sed -E '/^(COMPOSE_PROJECT_NAME|[A-Z_]+_HOST_PORT|[A-Z_]+_PUBLIC_URL|IMAGE_PREFIX)=/d' .env.example > "$env_file"
cat >> "$env_file" <<EOF
COMPOSE_PROJECT_NAME=$project
GATEWAY_HOST_PORT=$(p 0)
GATEWAY_PUBLIC_URL=http://localhost:$(p 0)
REGISTRY_HOST_PORT=$(p 100)
REGISTRY_PUBLIC_URL=http://localhost:$(p 100)
AUTH_HOST_PORT=$(p 200)
AUTH_PUBLIC_URL=http://localhost:$(p 200)
CHAIN_READER_HOST_PORT=$(p 1200)
GRAFANA_HOST_PORT=$(p 1)
PROMETHEUS_HOST_PORT=$(p 6090)
TEMPO_HOST_PORT=$(p 210)
OTLP_GRPC_HOST_PORT=$(p 1317)
OTLP_HTTP_HOST_PORT=$(p 1318)
IMAGE_PREFIX=${IMAGE_PREFIX:-}
EOF
compose() { "${compose_cli[@]}" --env-file "$env_file" -p "$project" -f docker-compose.yml "$@"; }
gateway=http://127.0.0.1:$(p 0) registry=http://127.0.0.1:$(p 100) auth=http://127.0.0.1:$(p 200)
tempo=http://127.0.0.1:$(p 210) prometheus=http://127.0.0.1:$(p 6090)
auth_public=http://localhost:$(p 200)

# 3. The images: ours built here, third-party ones present, pulled, or not obtainable.
if [ -z "${SKIP_BUILD:-}" ]; then
  t0=$(date +%s)
  scripts/build-images.sh > /tmp/compose-smoke-build.log 2>&1 || { tail -20 /tmp/compose-smoke-build.log >&2; fail 'scripts/build-images.sh (log: /tmp/compose-smoke-build.log)'; }
  step 'images built (scripts/build-images.sh)' "$(($(date +%s) - t0)) s"
fi
services=() left_out=() missing=()
# service image, from the interpolated file (the repository's yaml package reads compose's output).
images=$(compose config | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{for (const [n, v] of Object.entries(require("yaml").parse(s).services)) console.log(n, v.image ?? "")})')
while read -r service image; do
  if [ -z "$image" ] || docker image inspect "$image" > /dev/null 2>&1 || timeout 120 docker pull -q "$image" > /dev/null 2>&1; then
    services+=("$service")
  elif printf '%s\n' "${optional_services[@]}" | grep -qx "$service"; then
    left_out+=("$service ($image not obtainable)")
  else
    missing+=("$service: $image")
  fi
done <<< "$images"
[ ${#missing[@]} -eq 0 ] || not_run "images not obtainable (pull failed, not in the local store): ${missing[*]} — see docs/operations.md, 'Third-party images without Docker Hub'"
for s in "${left_out[@]}"; do step "left out: $s" 'NOT RUN'; done

# 4. Up, tracing on (compose's own OTEL_EXPORTER_OTLP_ENDPOINT), and always down -v at the end.
cleanup() {
  local rc=$?
  if [ $rc -eq 1 ]; then compose logs --no-color --tail=40 > /tmp/compose-smoke-logs.txt 2>&1 || true; echo "compose-smoke: the services' last logs: /tmp/compose-smoke-logs.txt" >&2; fi
  compose down -v --remove-orphans > /dev/null 2>&1 && echo "compose-smoke: down -v done" || echo "compose-smoke: down -v FAILED" >&2
  rm -rf "$env_file" "$scratch"
}
trap cleanup EXIT
t0=$(date +%s)
compose up -d --no-build "${services[@]}" > /tmp/compose-smoke-up.log 2>&1 || { cat /tmp/compose-smoke-up.log >&2; fail 'compose up'; }
wait_http() { # url what seconds
  local deadline=$(($(date +%s) + $3))
  until curl -sf -o /dev/null "$1"; do [ "$(date +%s)" -lt "$deadline" ] || fail "$2 did not answer $1 within $3 s"; sleep 0.5; done
}
wait_http "$gateway/readyz" gateway 240
wait_http "$registry/readyz" registry 60
wait_http "$auth/readyz" auth 60
step 'compose up: the apps ready' "$(($(date +%s) - t0)) s"

json() { node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(new Function("v", "return " + process.argv[1])(JSON.parse(s))))' "$1"; }
hex() { node -e "console.log(require('crypto').randomBytes($1).toString('hex'))"; }
mcp() { # url method [extra curl args…]: sets mcp_status and mcp_body (no subshell, so both are seen); params from $params, default {}
  local url=$1 method=$2; shift 2
  mcp_status=$(curl -s -o "$scratch/body" -w '%{http_code}' -X POST "$url" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H 'mcp-protocol-version: 2025-06-18' "$@" -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$method\",\"params\":${params:-{\}}}" || true)
  mcp_body=$(cat "$scratch/body" 2> /dev/null || true)
}
tools_of() { # tenant seconds: sets tools (polls: the registry's tenants arrive after its seed)
  local deadline=$(($(date +%s) + $2))
  for (( ; ; )); do
    mcp "$gateway/t/$1/mcp" tools/list
    tools=$(echo "$mcp_body" | json 'v.result?.tools?.length ?? 0' 2> /dev/null || echo 0)
    if [ "$mcp_status" = 200 ] && [ "$tools" -gt 0 ]; then return 0; fi
    [ "$(date +%s)" -lt "$deadline" ] || { echo "status $mcp_status: ${mcp_body:0:300}" >&2; return 1; }
    sleep 1
  done
}

# 5. The checks.
for tenant in demo conformance acme; do
  tools_of "$tenant" 120 || fail "tools/list on /t/$tenant/mcp"
  step "tools/list /t/$tenant/mcp" "$tools tools"
done
mcp "$gateway/t/secure/mcp" tools/list -D "$scratch/headers"
[ "$mcp_status" = 401 ] || fail "/t/secure/mcp without a token answered $mcp_status, not 401"
prm=$(grep -i '^www-authenticate:' "$scratch/headers" | sed -E 's/.*resource_metadata="([^"]+)".*/\1/' | tr -d '\r')
[ -n "$prm" ] || fail '/t/secure/mcp 401 has no resource_metadata in WWW-Authenticate'
as=$(curl -sf "${prm/http:\/\/localhost:$(p 0)/$gateway}" | json 'v.authorization_servers[0]') || fail "protected resource metadata $prm"
step 'tools/list /t/secure/mcp without a token' "401, authorization server $as"
issuer=$(curl -sf "$auth/.well-known/oauth-authorization-server/t/secure" | json 'v.issuer') || fail "AS metadata of /t/secure"
[ "$issuer" = "$auth_public/t/secure" ] || fail "secure's AS issuer is $issuer, not $auth_public/t/secure"
issuer=$(curl -sf "$auth/.well-known/oauth-authorization-server/platform" | json 'v.issuer') || fail 'platform AS metadata'
[ "$issuer" = "$auth_public/platform" ] || fail "the platform issuer is $issuer, not $auth_public/platform"
step 'AS metadata (platform, t/secure): issuers' "$issuer, $auth_public/t/secure"
code=$(curl -s -o /dev/null -w '%{http_code}' "$registry/console/")
[ "$code" = 200 ] || fail "console /console/ answered $code"
step 'console /console/' "$code"

# A request's trace, found in Tempo by the trace id it was sent with (compose trusts the client's
# traceparent): a tool call on acme crosses the gateway and the registry's demo upstream.
trace=$(hex 16)
params='{"name":"lookup_customer","arguments":{"id":"c_001"}}' mcp "$gateway/t/acme/mcp" tools/call -H "traceparent: 00-$trace-$(hex 8)-01"
[ "$mcp_status" = 200 ] && [[ "$mcp_body" == *Globex* ]] || fail "tools/call lookup_customer on acme with a traceparent answered $mcp_status: ${mcp_body:0:300}"
deadline=$(($(date +%s) + 90))
until services_in=$(curl -sf "$tempo/api/traces/$trace" | json '[...new Set(v.batches.map((b)=>b.resource.attributes.find((a)=>a.key==="service.name")?.value.stringValue))].sort().join(",")' 2> /dev/null) && [[ ",$services_in," == *,gateway,* && ",$services_in," == *,registry,* ]]; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "trace $trace with gateway and registry spans not found in Tempo ($tempo/api/traces/$trace) within 90 s (services: ${services_in:-none})"
  sleep 1
done
step "trace $trace in Tempo" "services: $services_in"

# Every Prometheus target up (the scrape interval is 15 s: allow a few rounds).
deadline=$(($(date +%s) + 120))
until targets=$(curl -sf "$prometheus/api/v1/targets" | json 'v.data.activeTargets.map((t)=>t.labels.job+"="+t.health).sort().join(" ")') && [ -n "$targets" ] && ! [[ " $targets" =~ =(down|unknown) ]]; do
  [ "$(date +%s)" -lt "$deadline" ] || fail "Prometheus targets not all up within 120 s: $targets"
  sleep 2
done
[ "$(echo "$targets" | wc -w)" -ge 5 ] || fail "Prometheus has $(echo "$targets" | wc -w) targets, not 5: $targets"
step 'Prometheus targets' "$targets"

# Grafana, when it runs: healthy, and its provisioned Tempo and Prometheus data sources there.
if printf '%s\n' "${services[@]}" | grep -qx grafana; then
  grafana=http://127.0.0.1:$(p 1)
  wait_http "$grafana/api/health" grafana 120
  sources=$(curl -sf -u "admin:$(sed -n 's/^GRAFANA_ADMIN_PASSWORD=//p' "$env_file")" "$grafana/api/datasources" | json 'v.map((d)=>d.type).sort().join(",")') || fail 'Grafana /api/datasources'
  [[ ",$sources," == *,tempo,* && ",$sources," == *,prometheus,* ]] || fail "Grafana's data sources are $sources, without tempo and prometheus"
  step 'Grafana: healthy, data sources' "$sources"
fi

# The gateway restarted serves again.
t0=$(date +%s%N)
compose restart gateway > /dev/null 2>&1 || fail 'compose restart gateway'
deadline=$(($(date +%s) + 120))
until mcp "$gateway/t/demo/mcp" tools/list && [ "$mcp_status" = 200 ]; do
  [ "$(date +%s)" -lt "$deadline" ] || fail 'the gateway did not serve /t/demo/mcp within 120 s of its restart'
  sleep 0.2
done
step 'gateway restart: serving /t/demo/mcp again after' "$(echo "scale=1; ($(date +%s%N) - $t0) / 1000000000" | bc) s"

# Labels of stand-in images, so a report never passes them off as the real ones.
for service in "${services[@]}"; do
  label=$(docker inspect -f '{{ index .Config.Labels "io.switchboard.standin" }}' "$(compose ps -q "$service")" 2> /dev/null || true)
  [ -z "$label" ] || [ "$label" = '<no value>' ] || step "STAND-IN $service" "$label"
done
step 'total' "$(($(date +%s) - started)) s"
if [ ${#left_out[@]} -gt 0 ]; then
  echo "compose-smoke: PASSED WITHOUT: ${left_out[*]}"
  exit 4
fi
echo 'compose-smoke: PASS'
