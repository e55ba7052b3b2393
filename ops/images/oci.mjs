#!/usr/bin/env node
// Turns a root filesystem tarball into an image whose digest is a function of its bytes, and
// serves it read-only over the registry API so `FROM name@sha256:…` can pin it on a machine
// without an image registry (`docker import` would stamp the current time into the config).
//   node ops/images/oci.mjs layout <rootfs.tar> <dir> <name:tag> [KEY=VALUE env…]   prints the manifest digest
//   node ops/images/oci.mjs serve <dir> <port>                                     read-only /v2/ on 127.0.0.1
// <dir> is an OCI image layout (index.json + blobs/sha256/*): `skopeo copy oci:<dir> docker://…`
// or `crane push <dir> …` puts the same manifest (same digest) into a real registry.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, statSync, createReadStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const CONFIG = 'application/vnd.docker.container.image.v1+json';
const LAYER = 'application/vnd.docker.image.rootfs.diff.tar.gzip';
const sha = (b) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function blob(dir, bytes) {
  const digest = sha(bytes);
  const file = path.join(dir, 'blobs', 'sha256', digest.slice(7));
  mkdirSync(path.dirname(file), { recursive: true });
  if (!existsSync(file)) writeFileSync(file, bytes);
  return { digest, size: bytes.length };
}

function layout(tarPath, dir, ref, envPairs) {
  const tar = readFileSync(tarPath);
  // zlib's output for a given level is stable; the gzip header carries no name or mtime.
  const layer = blob(dir, gzipSync(tar, { level: 9 }));
  const created = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? 1767225600) * 1000).toISOString();
  const env = [
    'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    'SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt',
    ...envPairs,
  ];
  const config = {
    architecture: 'amd64',
    os: 'linux',
    created,
    config: {
      Env: env,
      WorkingDir: '/app',
      User: '1000:1000',
      Cmd: ['node'],
      Labels: { 'org.opencontainers.image.ref.name': ref, 'org.opencontainers.image.source': 'ops/images/build-base.sh' },
    },
    rootfs: { type: 'layers', diff_ids: [sha(tar)] },
    history: [{ created, created_by: `ops/images/oci.mjs layout ${path.basename(tarPath)}` }],
  };
  const cfg = blob(dir, Buffer.from(JSON.stringify(config)));
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MANIFEST,
      config: { mediaType: CONFIG, ...cfg },
      layers: [{ mediaType: LAYER, ...layer }],
    }),
  );
  const m = blob(dir, manifest);
  const index = { schemaVersion: 2, manifests: [{ mediaType: MANIFEST, ...m, annotations: { 'org.opencontainers.image.ref.name': ref } }] };
  writeFileSync(path.join(dir, 'index.json'), JSON.stringify(index));
  writeFileSync(path.join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  process.stdout.write(`${m.digest}\n`);
}

function serve(dir, port) {
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
  const tags = new Map(index.manifests.map((m) => [m.annotations['org.opencontainers.image.ref.name'].split(':').pop(), m.digest]));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/.exec(url.pathname);
    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      res.writeHead(200, { 'Docker-Distribution-API-Version': 'registry/2.0', 'Content-Type': 'application/json' }).end('{}');
      return;
    }
    if (!m || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(m ? 405 : 404).end();
      return;
    }
    const digest = m[2] === 'manifests' && !m[3].startsWith('sha256:') ? tags.get(m[3]) : m[3];
    const file = digest && /^sha256:[0-9a-f]{64}$/.test(digest) ? path.join(dir, 'blobs', 'sha256', digest.slice(7)) : '';
    if (!file || !existsSync(file)) {
      res
        .writeHead(404, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ errors: [{ code: m[2] === 'blobs' ? 'BLOB_UNKNOWN' : 'MANIFEST_UNKNOWN' }] }));
      return;
    }
    const type = m[2] === 'manifests' ? MANIFEST : 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': statSync(file).size, 'Docker-Content-Digest': digest });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  server.listen(Number(port), '127.0.0.1', () => process.stdout.write(`serving ${dir} on 127.0.0.1:${port}\n`));
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'layout' && args.length >= 3) layout(args[0], args[1], args[2], args.slice(3));
else if (cmd === 'serve' && args.length === 2) serve(args[0], args[1]);
else {
  process.stderr.write('usage: oci.mjs layout <rootfs.tar> <dir> <name:tag> [ENV=…] | serve <dir> <port>\n');
  process.exit(2);
}
