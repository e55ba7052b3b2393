#!/usr/bin/env bash
# The runtime base's root filesystem as one reproducible tarball: glibc, libstdc++, libgcc, the CA
# bundle and tzdata from Debian (no shell, no package manager, no perl/openssl), an unprivileged
# `node` user (uid 1000) and the Node.js binary, stripped of its debug info.
#   ops/images/base-rootfs.sh <node-binary> <out.tar>
# Same inputs -> same bytes: SOURCE_DATE_EPOCH fixes every mtime mmdebstrap and tar write, and
# DEBIAN_MIRROR can name a snapshot (https://snapshot.debian.org/archive/debian/<timestamp>/) so
# the Debian packages are the same ones next year too.
set -euo pipefail
node_bin=${1:?usage: base-rootfs.sh <node-binary> <out.tar>}
out=${2:?usage: base-rootfs.sh <node-binary> <out.tar>}
suite=${DEBIAN_SUITE:-bookworm}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1767225600}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$node_bin" "$work/node"
# Debug info is a sixth of the binary (126.6 -> 108.5 MB for v24.21.0); stack traces keep their
# JavaScript frames, only native symbolisation goes.
strip --strip-all "$work/node"

# `extract` unpacks the packages (and what they depend on) without running maintainer scripts;
# then keep only what a Node process loads and write the files those scripts would have.
rootfs="$work/rootfs"
mmdebstrap --quiet --mode=root --variant=extract --format=directory \
  --include=libc6,libstdc++6,libgcc-s1,ca-certificates,tzdata \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  "$suite" "$rootfs" "$mirror"
cd "$rootfs"
# Node links OpenSSL and ICU statically: libssl, the openssl CLI, perl and debconf (pulled in by
# ca-certificates' and tzdata's maintainer scripts) and iconv modules are dead weight.
rm -rf usr/bin usr/sbin usr/games usr/share/man usr/share/perl5 usr/share/lintian usr/share/gdb \
  usr/share/debconf usr/share/bash-completion usr/share/pixmaps usr/share/doc usr/share/info \
  usr/share/locale usr/share/gcc usr/lib/x86_64-linux-gnu/perl-base usr/lib/x86_64-linux-gnu/perl \
  usr/lib/x86_64-linux-gnu/gconv usr/lib/x86_64-linux-gnu/engines-3 usr/lib/x86_64-linux-gnu/ossl-modules \
  usr/lib/x86_64-linux-gnu/libssl.so* usr/lib/x86_64-linux-gnu/libcrypto.so* usr/lib/ssl \
  var/lib/dpkg var/lib/apt var/cache var/log etc/apt etc/dpkg etc/debconf.conf etc/ssl/openssl.cnf \
  etc/ssl/private etc/ca-certificates.conf
mkdir -p usr/bin usr/local/bin etc/ssl/certs tmp var/tmp app home/node
chmod 1777 tmp var/tmp
# What update-ca-certificates would write (Node reads it with NODE_USE_SYSTEM_CA / --use-system-ca).
find usr/share/ca-certificates -name '*.crt' | LC_ALL=C sort | xargs cat > etc/ssl/certs/ca-certificates.crt
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnode:x:1000:1000:node:/home/node:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' > etc/passwd
printf 'root:x:0:\nnode:x:1000:\nnogroup:x:65534:\n' > etc/group
ln -sfn /usr/share/zoneinfo/Etc/UTC etc/localtime
echo Etc/UTC > etc/timezone
install -m 0755 -o 0 -g 0 "$work/node" usr/local/bin/node
chown 1000:1000 home/node
cd - > /dev/null
# Deterministic archive: sorted names, clamped mtimes, numeric owners, no atime/ctime.
tar --sort=name --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime --numeric-owner --format=posix \
  --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
  -C "$rootfs" -cf "$out" .
