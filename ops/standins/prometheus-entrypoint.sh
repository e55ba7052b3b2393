#!/bin/bash
# STAND-IN for prom/prometheus's entrypoint (ops/standins/build.sh): Debian's Prometheus 2.42 does
# not know `scrape_protocols` (2.49+; it negotiates OpenMetrics first anyway when exemplar storage
# is on), so the mounted config is read without those lines.
set -euo pipefail
args=()
for a in "$@"; do
  case "$a" in
    --config.file=*) sed '/scrape_protocols:/d' "${a#--config.file=}" > /tmp/prometheus.yml; args+=(--config.file=/tmp/prometheus.yml) ;;
    *) args+=("$a") ;;
  esac
done
exec /usr/bin/prometheus --storage.tsdb.path=/prometheus/data "${args[@]}"
