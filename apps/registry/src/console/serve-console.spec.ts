import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { serveConsole } from './serve-console';

/** A built console in a temporary folder, and a secret file beside it that must never be served. */
async function consoleBuild(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'console-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  await writeFile(path.join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(path.join(dir, 'assets', 'index-abc.css'), 'body{}');
  await writeFile(path.join(dir, 'favicon.svg'), '<svg/>');
  await writeFile(path.join(path.dirname(dir), `secret-${path.basename(dir)}.txt`), 'TOP-SECRET-CONTENT');
  return dir;
}

async function removeBuild(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await rm(path.join(path.dirname(dir), `secret-${path.basename(dir)}.txt`), { force: true });
}

describe('serveConsole', () => {
  let dir: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    dir = await consoleBuild();
    app = Fastify();
    expect(serveConsole(app, dir)).toBe(true);
    // The sign-in routes (ConsoleAuthController) live under the same prefix, registered after the SPA's catch-all.
    app.get('/console/auth.json', async () => ({ oauth: true }));
    app.get('/console/login', async (_req, reply) => reply.redirect('https://issuer.example/auth', 302));
    await app.ready();
  });

  afterAll(async () => Promise.all([app.close(), removeBuild(dir)]));

  it('serves index.html at /console/ with no-cache and a CSP', async () => {
    const res = await app.inject('/console/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.body).toContain('<title>console</title>');
  });

  it('leaves the sign-in routes beside it to their own handlers (a file name or client route never shadows them)', async () => {
    const auth = await app.inject('/console/auth.json');
    expect(auth.statusCode).toBe(200);
    expect(auth.json()).toEqual({ oauth: true });
    const login = await app.inject('/console/login');
    expect(login.statusCode).toBe(302);
    expect((await app.inject('/console/tools')).body).toContain('<title>console</title>');
  });

  it('redirects /console to /console/', async () => {
    const res = await app.inject('/console');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/console/');
  });

  it.each([
    ['/console/assets/index-abc.js', 'text/javascript; charset=utf-8', 'console.log(1)'],
    ['/console/assets/index-abc.css', 'text/css; charset=utf-8', 'body{}'],
    ['/console/favicon.svg', 'image/svg+xml', '<svg/>'],
  ])('serves %s as %s', async (url, type, body) => {
    const res = await app.inject(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.body).toBe(body);
  });

  it('caches hashed assets for a year', async () => {
    expect((await app.inject('/console/assets/index-abc.js')).headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answers index.html for client routes (reload on /console/tools works)', async () => {
    for (const url of ['/console/tools', '/console/preview', '/console/servers/crm']) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<title>console</title>');
    }
  });

  it('answers 404 (not HTML) for a missing asset', async () => {
    const res = await app.inject('/console/assets/gone-123.js');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it.each(['/console/..%2f' + 'secret.txt', '/console/%2e%2e/secret.txt', '/console/..%2F..%2Fetc%2Fpasswd.txt'])(
    'never serves files outside the build (%s)',
    async (url) => {
      const res = await app.inject(url.replace('secret.txt', `secret-${path.basename(dir)}.txt`));
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('TOP-SECRET-CONTENT');
    },
  );

  it('answers 400 for malformed percent-encoding', async () => {
    expect((await app.inject('/console/%E0%A4%A.txt')).statusCode).toBe(400);
  });
});

describe('serveConsole without a build', () => {
  it('registers nothing when the console is not built', async () => {
    const bare = Fastify();
    expect(serveConsole(bare, path.join(tmpdir(), `console-missing-${process.pid}`, 'dist'))).toBe(false);
    await bare.ready();
    expect((await bare.inject('/console/')).statusCode).toBe(404);
    await bare.close();
  });
});
