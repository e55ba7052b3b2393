#!/usr/bin/env bash
# What the tests need on this machine, provided when absent: Redis on 127.0.0.1:6379,
# PostgreSQL on 127.0.0.1:5432 (trust auth for user postgres over TCP), Chromium for the
# console's browser tests. Runs as `npm test`'s `pretest` step and from `.ci/run`.
# Idempotent: each step is a no-op when the thing is already there. A step that cannot be
# done says so in one line naming what to install and the run goes on (the tests that need
# it then fail with their own message), so the summary at the end lists every gap.
set -uo pipefail
cd "$(dirname "$0")/.."

missing=()
say() { printf '[test set-up] %s\n' "$*"; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else SUDO="none"; fi
fi

apt_ready=0
apt_install() { # apt_install <package...>: 0 when installed
  command -v apt-get >/dev/null 2>&1 || return 1
  [ "$SUDO" = none ] && return 1
  if [ "$apt_ready" = 0 ]; then $SUDO apt-get update -qq >/dev/null 2>&1 || return 1; apt_ready=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1
}

wait_for() { # wait_for <command...>: poll up to 30 s
  for _ in $(seq 1 60); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  return 1
}

redis_up() { node -e 'const s=require("net").connect(6379,"127.0.0.1");s.on("connect",()=>{s.write("PING\r\n")});s.on("data",d=>process.exit(String(d).startsWith("+PONG")?0:1));s.on("error",()=>process.exit(1));setTimeout(()=>process.exit(1),2000)'; }
pg_up() { node -e 'const s=require("net").connect(5432,"127.0.0.1");s.on("connect",()=>process.exit(0));s.on("error",()=>process.exit(1));setTimeout(()=>process.exit(1),2000)'; }

# --- Redis ---------------------------------------------------------------------------------
if ! redis_up; then
  if ! command -v redis-server >/dev/null 2>&1; then apt_install redis-server || true; fi
  if command -v redis-server >/dev/null 2>&1; then
    dir=.data/test-redis; mkdir -p "$dir"
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir "$dir" --logfile "$PWD/$dir/redis.log" >/dev/null
    if wait_for redis_up; then say "Redis started on 127.0.0.1:6379 (log $dir/redis.log)"; else missing+=("Redis (redis-server did not answer on 127.0.0.1:6379; see $dir/redis.log)"); fi
  else
    missing+=("Redis on 127.0.0.1:6379 (install redis-server: apt-get install redis-server / brew install redis)")
  fi
fi

# --- PostgreSQL ----------------------------------------------------------------------------
if ! pg_up; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1 && ! command -v pg_ctlcluster >/dev/null 2>&1; then apt_install postgresql || true; fi
  if ls /etc/postgresql/*/main >/dev/null 2>&1 && [ "$SUDO" != none ]; then
    ver=$(ls /etc/postgresql | sort -V | tail -1)
    conf=/etc/postgresql/$ver/main
    # Tests connect over TCP as postgres with trust auth, as on the developers' machines.
    grep -q '^host all all 127.0.0.1/32 trust' "$conf/pg_hba.conf" || $SUDO sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$conf/pg_hba.conf"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main start >/dev/null 2>&1 || $SUDO pg_ctlcluster --skip-systemctl-redirect "$ver" main restart >/dev/null 2>&1 || true
    if wait_for pg_up; then say "PostgreSQL $ver started on 127.0.0.1:5432"; else missing+=("PostgreSQL (cluster $ver did not start; see /var/log/postgresql)"); fi
  else
    missing+=("PostgreSQL on 127.0.0.1:5432 with trust auth for user postgres (install postgresql: apt-get install postgresql)")
  fi
fi

# --- Chromium (the console's browser tests) ------------------------------------------------
if [ ! -x /usr/bin/chromium ]; then
  if [ "$SUDO" = none ] || ! bash scripts/ensure-chromium.sh >/dev/null 2>&1; then
    missing+=("Chromium at /usr/bin/chromium (run scripts/ensure-chromium.sh as root, or apt-get install chromium)")
  else
    say "Chromium installed"
  fi
fi

if [ ${#missing[@]} -gt 0 ]; then
  for m in "${missing[@]}"; do say "COULD NOT PROVIDE: $m — the tests that need it will fail"; done
else
  say "Redis, PostgreSQL and Chromium are available"
fi
exit 0
