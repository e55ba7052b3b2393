// `switchboard login` end to end: the built CLI signs in through the real platform issuer (the
// built auth service) with PKCE and a loopback redirect, a test browser plays the user at the
// issuer's sign-in form, and the stored tokens then authenticate admin API calls, refresh
// when expired, and are forgotten by logout. Build first: `npx tsc -b tsconfig.build.json`.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  cleanRedis,
  createDatabase,
  createTenant,
  freePort,
  parseForm,
  startRegistry,
  testEnv,
  TestBrowser,
  type Proc,
} from '@switchboard/testing';
import { CLI_BIN, runCli } from './support/run-cli';
import { startPlatformIssuer } from './support/start-platform-issuer';

jest.setTimeout(120_000);

const ADA = { username: 'ada', password: 'correct horse battery', name: 'Ada Lovelace' };
/** The issuer's token budget per IP and minute (token, device authorization and user-code entry): the whole file stays under it until the last test. */
const TOKEN_RATE_PER_MIN = 40;

describe('switchboard login (browser PKCE with a loopback redirect, or device authorization) through the platform issuer', () => {
  const env = testEnv();
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let registry: Proc;
  let auth: Proc & { issuer: string };
  let dir: string;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    db = await createDatabase();
    // Each side needs the other's URL: reserve both ports first.
    const [registryPort, authPort] = [await freePort(), await freePort()];
    const base = `http://127.0.0.1:${registryPort}`;
    auth = await startPlatformIssuer({
      database: db.name,
      port: authPort,
      registry: base,
      internalToken: env.internalToken,
      tokenRatePerMin: TOKEN_RATE_PER_MIN,
    });
    registry = await startRegistry(env, db.url, { REGISTRY_PORT: String(registryPort), CONSOLE_ISSUER: auth.issuer });
    await createTenant(registry.url, env.operatorKey, 'acme', ADA);
    dir = await mkdtemp(path.join(tmpdir(), 'switchboard-login-'));
    cliEnv = { SWITCHBOARD_URL: registry.url, SWITCHBOARD_CONFIG_DIR: dir };
  });

  afterAll(async () => {
    await registry?.stop();
    await auth?.stop();
    await db?.drop();
    await cleanRedis(env);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs `switchboard login --no-browser`, reads the URL it prints and signs in at the issuer as `password` says. */
  async function login(password: string): Promise<{ code: number; stdout: string; stderr: string; formStatus: number }> {
    const child = spawn(process.execPath, [CLI_BIN, 'login', '--no-browser', '--issuer', auth.issuer], {
      env: { PATH: process.env.PATH, ...cliEnv },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /^(http\S+\/authorize\?\S+)$/m.exec(stderr);
        if (m) resolve(m[1]);
      });
      child.once('exit', () => reject(new Error(`login exited before printing a URL: ${stderr}`)));
    });
    const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
    const browser = new TestBrowser();
    const page = await browser.follow(url);
    const form = parseForm(await page.res.text(), /\/login$/);
    const posted = await browser.postForm(new URL(form.action, page.url).href, {
      ...form.fields,
      workspace: 'acme',
      username: ADA.username,
      password,
    });
    if (posted.status >= 400) {
      child.kill('SIGTERM');
      return { code: await exited, stdout, stderr, formStatus: posted.status };
    }
    // The issuer's redirects end at the CLI's loopback listener, which answers the browser itself.
    const landed = await browser.follow(
      new URL(posted.headers.get('location') ?? '', form.action.startsWith('http') ? form.action : page.url).href,
    );
    expect(landed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(await landed.res.text()).toContain('Signed in');
    return { code: await exited, stdout, stderr, formStatus: posted.status };
  }

  /** Runs `switchboard login --device`; a browser enters the printed code at the issuer, confirms and signs in. */
  async function deviceLogin(): Promise<{ code: number; stdout: string; stderr: string; success: string }> {
    const child = spawn(process.execPath, [CLI_BIN, 'login', '--device', '--issuer', auth.issuer], {
      env: { PATH: process.env.PATH, ...cliEnv },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
    const prompt = await new Promise<{ uri: string; code: string }>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /open (http\S+) and enter the code (\S+)/.exec(stderr);
        if (m) resolve({ uri: m[1], code: m[2] });
      });
      child.once('exit', () => reject(new Error(`login exited before printing a code: ${stderr}`)));
    });
    const browser = new TestBrowser();
    const input = await browser.get(prompt.uri);
    const inputForm = parseForm(await input.text());
    const confirm = await browser.postForm(new URL(inputForm.action, prompt.uri).href, { ...inputForm.fields, user_code: prompt.code });
    const confirmPage = await confirm.text();
    expect(confirmPage).toContain('Switchboard CLI');
    const confirmForm = parseForm(confirmPage);
    const started = await browser.postForm(new URL(confirmForm.action, prompt.uri).href, confirmForm.fields);
    const loginPage = await browser.follow(new URL(started.headers.get('location') ?? '', prompt.uri).href);
    const form = parseForm(await loginPage.res.text(), /\/login$/);
    const posted = await browser.postForm(new URL(form.action, loginPage.url).href, {
      ...form.fields,
      workspace: 'acme',
      username: ADA.username,
      password: ADA.password,
    });
    const done = await browser.follow(new URL(posted.headers.get('location') ?? '', loginPage.url).href);
    return { code: await exited, stdout, stderr, success: await done.res.text() };
  }

  it('refuses admin API calls with exit 3 before any login', async () => {
    const run = await runCli(['whoami', '--output', 'json'], cliEnv);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stderr).error.message).toContain('run switchboard login');
  });

  it('signs in with the browser, stores the tokens owner-only, and calls the admin API as the admin', async () => {
    const run = await login(ADA.password);
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: 'signed in to acme as ada (owner)\n' });
    const file = path.join(dir, 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(await readFile(file, 'utf8'))[registry.url];
    expect(stored).toMatchObject({
      issuer: auth.issuer,
      clientId: 'switchboard-cli',
      resource: `${registry.url}/v1`,
      refreshToken: expect.any(String),
    });
    const me = await runCli(['whoami', '--output', 'json'], cliEnv);
    expect(JSON.parse(me.stdout)).toEqual({ tenant: 'acme', via: 'token', role: 'owner', user: { username: 'ada', name: ADA.name } });
  });

  it('refreshes an expired access token with the stored refresh token', async () => {
    const file = path.join(dir, 'credentials.json');
    const all = JSON.parse(await readFile(file, 'utf8'));
    const before = all[registry.url];
    all[registry.url] = { ...before, expiresAt: Date.now() - 1000 };
    await writeFile(file, JSON.stringify(all));
    const me = await runCli(['whoami', '--output', 'json'], cliEnv);
    expect(me.code).toBe(0);
    const after = JSON.parse(await readFile(file, 'utf8'))[registry.url];
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAt).toBeGreaterThan(Date.now());
  });

  it('refreshes once for a command that makes several calls at once (a rotated refresh token is not replayed)', async () => {
    const file = path.join(dir, 'credentials.json');
    const all = JSON.parse(await readFile(file, 'utf8'));
    all[registry.url] = { ...all[registry.url], expiresAt: Date.now() - 1000 };
    await writeFile(file, JSON.stringify(all));
    // export reads five admin API resources in parallel.
    const exported = await runCli(['export', '--output', 'json'], cliEnv);
    expect({ code: exported.code, stderr: exported.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(exported.stdout).tenant.name).toBe('Tenant acme');
    expect((await runCli(['whoami'], cliEnv)).code).toBe(0);
  });

  it.each(['http://evil.example/callback', 'http://127.0.0.1:4000/other', 'https://127.0.0.1:4000/callback'])(
    'the CLI client may only come back to the loopback callback: %s is refused',
    async (redirect) => {
      const url = new URL(`${auth.issuer}/authorize`);
      const params = {
        client_id: 'switchboard-cli',
        redirect_uri: redirect,
        response_type: 'code',
        scope: 'console',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      };
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('redirect_uri');
    },
  );

  it('a wrong password stays at the issuer and stores nothing new', async () => {
    const file = path.join(dir, 'credentials.json');
    const before = await readFile(file, 'utf8');
    const run = await login('not the password at all');
    expect(run.formStatus).toBe(401);
    expect(run.code).not.toBe(0);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('signs in with device authorization (RFC 8628): the code is entered and confirmed in a browser elsewhere', async () => {
    await runCli(['logout'], cliEnv);
    const run = await deviceLogin();
    expect(run.success).toContain('The device is signed in');
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: 'signed in to acme as ada (owner)\n' });
    const me = await runCli(['whoami', '--output', 'json'], cliEnv);
    expect(JSON.parse(me.stdout)).toMatchObject({ tenant: 'acme', via: 'token', user: { username: 'ada' } });
  });

  it('forgets the login with logout', async () => {
    expect((await runCli(['logout'], cliEnv)).code).toBe(0);
    expect((await runCli(['whoami'], cliEnv)).code).toBe(3);
  });

  // Last: it spends this address's token budget for the rest of the minute.
  it('bounds user-code guesses: entering codes counts against the token budget (429 with Retry-After)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= TOKEN_RATE_PER_MIN; i++) {
      const res = await fetch(`${auth.issuer}/device`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'user_code=BCDFGHJK&xsrf=x',
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        break;
      }
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length).toBeLessThanOrEqual(TOKEN_RATE_PER_MIN + 1);
  });
});
