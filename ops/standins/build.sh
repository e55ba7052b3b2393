#!/usr/bin/env bash
# STAND-INS for docker-compose.yml's third-party images, for machines that reach Debian's package
# mirror but no image registry (the run recorded in docs/operations.md). They are NOT the images
# compose names: other versions, other builds, tagged under IMAGE_PREFIX=switchboard-standin/ so
# nothing mistakes them for the real ones, and labelled io.switchboard.standin with what they are.
#   ops/standins/build.sh          then: IMAGE_PREFIX=switchboard-standin/ docker compose up …
# - postgres, redis, prometheus: Debian bookworm's postgresql-15, redis-server 7.0, prometheus 2.42
#   (one rootfs built with mmdebstrap, imported three times with each program as its entrypoint);
# - otel/opentelemetry-collector-contrib, grafana/tempo: Debian has neither. otlp-standin.mjs on
#   the node base: as the "collector" it receives OTLP/HTTP and forwards traces to tempo:4318; as
#   "tempo" it keeps them in memory and answers Tempo's GET /api/traces/<id>. No spanmetrics, no
#   service graph, no gRPC, nothing kept across restarts.
# - grafana/grafana: Debian has no Grafana; no stand-in (compose-smoke.sh leaves it out).
# Needs a running Docker engine, mmdebstrap and the node base (scripts/build-images.sh builds it).
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=switchboard-standin/
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
base=$(sed -n 's/^ARG BASE=//p' apps/gateway/Dockerfile)
docker image inspect "$base" > /dev/null 2>&1 || { echo "standins: the node base $base is missing: run scripts/build-images.sh first" >&2; exit 3; }
command -v mmdebstrap > /dev/null || { echo 'standins: mmdebstrap is missing (apt-get install -y mmdebstrap)' >&2; exit 3; }
mkdir -p .image
tar=.image/standin-debian-services.tar
if [ ! -s "$tar" ]; then
  # Maintainer scripts run (variant apt): the postgres and prometheus users exist; nothing is started.
  mmdebstrap --quiet --mode=root --variant=apt --format=tar \
    --include=postgresql-15,redis-server,prometheus,wget,ca-certificates \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --customize-hook='copy-in ops/standins/postgres-entrypoint.sh ops/standins/prometheus-entrypoint.sh /usr/local/bin/' \
    --customize-hook='chmod 0755 "$1"/usr/local/bin/postgres-entrypoint.sh "$1"/usr/local/bin/prometheus-entrypoint.sh' \
    "$suite" "$tar" "$mirror"
fi
import_as() { # tag what changes…
  local tag=$1 what=$2; shift 2
  local changes=(--change "LABEL io.switchboard.standin=\"$what\"")
  for c in "$@"; do changes+=(--change "$c"); done
  docker import "${changes[@]}" "$tar" "$prefix$tag" > /dev/null
  echo "stand-in $prefix$tag: $what"
}
import_as postgres:17.2-alpine 'Debian bookworm postgresql-15, not postgres:17.2-alpine' \
  'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  'ENV PGDATA=/var/lib/postgresql/data' 'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]'
# The redis image turns protected mode off (other containers connect without a password); Debian's
# binary keeps it on without a config file, so the stand-in adds the flag to compose's command.
import_as redis:7.4.1-alpine 'Debian bookworm redis-server 7.0, not redis:7.4.1-alpine' \
  'WORKDIR /data' 'ENTRYPOINT ["/bin/sh", "-c", "exec \"$@\" --protected-mode no", "--"]' 'CMD ["redis-server"]'
import_as prom/prometheus:v2.55.1 'Debian bookworm prometheus 2.42, not prom/prometheus:v2.55.1' \
  'WORKDIR /prometheus' 'ENTRYPOINT ["/usr/local/bin/prometheus-entrypoint.sh"]'
for role in otel/opentelemetry-collector-contrib:0.115.1 grafana/tempo:2.6.1; do
  DOCKER_BUILDKIT=0 docker build -q --build-arg "BASE=$base" --label "io.switchboard.standin=otlp-standin.mjs (Node), not $role" \
    -f ops/standins/Dockerfile.otlp -t "$prefix$role" ops/standins > /dev/null
  echo "stand-in $prefix$role: ops/standins/otlp-standin.mjs, not $role"
done
echo "grafana/grafana:11.3.1: no stand-in (Debian has no Grafana package)"
