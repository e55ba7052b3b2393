import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `vite build apps/console` writes (same relative path from src/ under jest and dist/ when built). */
export const CONSOLE_DIST = path.resolve(__dirname, '../../../console/dist');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// The console only talks to this origin's admin API; no inline script, no framing.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/**
 * Serves the built tenant console (apps/console/dist) at `/console/`: files with their content
 * type, hashed assets cached for a year, and index.html for every other path so client routes
 * (`/console/tools`) survive a reload. Registers nothing when the build is absent (returns false),
 * so the registry runs without it.
 */
export function serveConsole(fastify: FastifyInstance, dir: string = CONSOLE_DIST): boolean {
  const root = path.resolve(dir);
  if (!existsSync(path.join(root, 'index.html'))) return false;

  const sendIndex = async (reply: FastifyReply) => {
    const html = await readFile(path.join(root, 'index.html'));
    return reply
      .header('content-type', TYPES['.html'])
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .send(html);
  };

  fastify.get('/console', async (_req, reply) => reply.redirect('/console/', 301));
  fastify.get('/console/*', async (req, reply) => {
    const rest = (req.params as { '*'?: string })['*'] ?? '';
    let rel: string;
    try {
      rel = decodeURIComponent(rest);
    } catch {
      return reply.code(400).send({ error: { code: 'VALIDATION', message: 'path: malformed percent-encoding', field: 'path' } });
    }
    const file = path.resolve(root, rel);
    // Never outside the build folder (`..`, absolute paths, encoded separators).
    if (file !== root && !file.startsWith(root + path.sep))
      return reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'path: not found', field: 'path' } });
    const ext = path.extname(file);
    const info = rel && ext ? await stat(file).catch(() => undefined) : undefined;
    if (info?.isFile()) {
      const immutable = rel.startsWith('assets/');
      return reply
        .header('content-type', TYPES[ext] ?? 'application/octet-stream')
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .send(await readFile(file));
    }
    // A missing file with an extension is a 404 (a stale asset must not answer HTML); anything else is a client route.
    if (ext) return reply.code(404).send({ error: { code: 'NOT_FOUND', message: `path: ${rel} not found`, field: 'path' } });
    return sendIndex(reply);
  });
  return true;
}
