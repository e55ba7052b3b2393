#!/bin/bash
# STAND-IN for the postgres image's entrypoint (ops/standins/build.sh): on an empty PGDATA, a
# cluster whose superuser is POSTGRES_USER with POSTGRES_PASSWORD and the database POSTGRES_DB;
# then postgres in the foreground, listening on every address with password auth from outside.
set -euo pipefail
: "${POSTGRES_USER:=postgres}" "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}" "${POSTGRES_DB:=$POSTGRES_USER}"
mkdir -p "$PGDATA" /run/postgresql
chown postgres:postgres "$PGDATA" /run/postgresql
chmod 700 "$PGDATA"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" > "$pw"
  chown postgres "$pw"
  runuser -u postgres -- initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 > /dev/null
  rm -f "$pw"
  echo 'host all all all scram-sha-256' >> "$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" | runuser -u postgres -- postgres --single -D "$PGDATA" -j postgres > /dev/null
  fi
fi
exec runuser -u postgres -- postgres -D "$PGDATA" -c listen_addresses='*' "$@"
