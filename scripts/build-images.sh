#!/usr/bin/env bash
# Builds the local base image and every app image, then prints their sizes.
#   scripts/build-images.sh                 base (if its digest changed) + gateway, auth, registry, chain-reader
#   scripts/build-images.sh gateway auth    only these apps
# The gateway makes two images: switchboard/gateway:prod (production: no development fixtures)
# and switchboard/gateway:dev (with libs/fixtures, for the file tenants of docker-compose.yml and
# the k8s dev overlay); the other apps make one, switchboard/<app>:dev.
# Needs a running Docker engine (no registry), mmdebstrap, bc, strip (binutils) and Debian's package
# mirror (DEBIAN_MIRROR) for the base (docs/operations.md lists versions); runs `npm ci` first when
# node_modules is missing. Same lockfile + same Debian packages + same SOURCE_DATE_EPOCH -> the same
# base digest and the same app files (docs/images.md).
#   BASE=registry.example.com/switchboard/node-base@sha256:…  build the apps on that base instead
# Exit codes: 2 usage, 3 a prerequisite is missing (named on stderr), else the failing step's.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v docker > /dev/null || missing+=("docker (the CLI)")
if command -v docker > /dev/null && ! docker info > /dev/null 2>&1; then missing+=("a running Docker engine (docker info fails: start dockerd)"); fi
command -v npm > /dev/null || missing+=("npm (Node.js)")
if [ -z "${BASE:-}" ]; then
  for tool in mmdebstrap bc strip; do command -v "$tool" > /dev/null || missing+=("$tool"); done
fi
if [ ${#missing[@]} -gt 0 ]; then
  printf 'build-images: missing prerequisite: %s\n' "${missing[@]}" >&2
  echo 'build-images: Debian/Ubuntu: apt-get install -y mmdebstrap bc binutils (and a Docker engine); see docs/operations.md' >&2
  exit 3
fi
# A fresh clone has no node_modules: the lockfile's Node binary and the bundler come from npm ci.
if [ ! -x node_modules/node/bin/node ] || [ ! -d node_modules/esbuild ]; then
  echo 'build-images: node_modules missing: npm ci'
  npm ci --no-audit --no-fund
fi
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=(gateway auth registry chain-reader)
for app in "${apps[@]}"; do
  [ -f "apps/$app/Dockerfile" ] || { echo "usage: scripts/build-images.sh [gateway|auth|registry|chain-reader]…" >&2; exit 2; }
done
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}
port=${BASE_REGISTRY_PORT:-5115}
node_bin=node_modules/node/bin/node
mkdir -p .image

pinned=$(sed -n 's/^ARG BASE=//p' apps/gateway/Dockerfile)
if [ -z "${BASE:-}" ]; then
  # 1. The base: Debian runtime libraries + the lockfile's Node binary, one reproducible layer.
  echo "node-base: Node $($node_bin --version), Debian ${DEBIAN_SUITE:-bookworm}"
  ops/images/base-rootfs.sh "$node_bin" .image/node-base.tar
  rm -rf .image/node-base-oci
  digest=$(node ops/images/oci.mjs layout .image/node-base.tar .image/node-base-oci "switchboard/node-base:$($node_bin --version | tr -d v)")
  BASE="127.0.0.1:$port/switchboard/node-base@$digest"
  if [ "$BASE" != "$pinned" ]; then
    echo "node-base: built $digest, the Dockerfiles pin ${pinned#*@}: update ARG BASE in apps/*/Dockerfile (the Debian packages or Node changed)" >&2
  fi
  if ! docker image inspect "$BASE" > /dev/null 2>&1; then
    # docker pulls only from a registry: serve the layout read-only on loopback for this pull.
    node ops/images/oci.mjs serve .image/node-base-oci "$port" > /dev/null &
    server=$!
    trap 'kill $server 2> /dev/null || true' EXIT
    for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/v2/" > /dev/null && break; sleep 0.1; done
    docker pull -q "$BASE"
    kill $server
    trap - EXIT
  fi
fi

# 2. Compile, then one bundle per app (the registry serves the console build).
npx tsc -b tsconfig.build.json
if printf '%s\n' "${apps[@]}" | grep -qx registry; then npx vite build apps/console --logLevel warn; fi
images=() # tag app bundle
for app in "${apps[@]}"; do
  if [ "$app" = gateway ]; then
    node ops/images/bundle.mjs apps/gateway .image/gateway
    node ops/images/bundle.mjs --with-fixtures apps/gateway .image/gateway-dev
    images+=("switchboard/gateway:prod gateway gateway" "switchboard/gateway:dev gateway gateway-dev")
  else
    node ops/images/bundle.mjs "apps/$app" ".image/$app"
    images+=("switchboard/$app:dev $app $app")
  fi
done
for image in "${images[@]}"; do
  read -r _ _ bundle <<< "$image"
  # Read-only to everyone but root inside the image, whatever the umask of this checkout.
  chmod -R u+rwX,go+rX,go-w ".image/$bundle"
done

# 3. The images (the classic builder is enough: no RUN step, so no shell is needed in the base).
for image in "${images[@]}"; do
  read -r tag app bundle <<< "$image"
  extra=(); [ "$app" = gateway ] && extra=(--build-arg "BUNDLE=$bundle")
  DOCKER_BUILDKIT=0 docker build -q --build-arg "BASE=$BASE" "${extra[@]}" -f "apps/$app/Dockerfile" -t "$tag" . > /dev/null
done

printf '%-28s %10s %12s\n' image MB 'app files MB'
base_bytes=$(docker image inspect -f '{{.Size}}' "$BASE")
printf '%-28s %10.1f %12s\n' switchboard/node-base "$(echo "$base_bytes / 1000000" | bc -l)" -
for image in "${images[@]}"; do
  read -r tag _ _ <<< "$image"
  bytes=$(docker image inspect -f '{{.Size}}' "$tag")
  printf '%-28s %10.1f %12.1f\n' "$tag" "$(echo "$bytes / 1000000" | bc -l)" "$(echo "($bytes - $base_bytes) / 1000000" | bc -l)"
done
