// What the console form specs share (console-forms*.spec.ts): a registry offering only the API-key
// sign-in, the SDK-built docs upstream, one Chromium, page helpers, and the hostile values typed into
// every field. No gateway (a closed port): nothing there needs one.
import type { Page } from 'playwright-core';
import { freePort, openConsoleBrowser, type ConsoleBrowser } from './console-browser';
import { startDocsUpstream } from './docs-upstream';
import { cleanRedis, createDatabase, createTenant, startRegistry, testEnv, type Proc } from './harness';

/** What people paste: markup, injection attempts, emoji and bidi overrides, huge values, blanks, prototype keys, NUL, paths. */
export const HOSTILE = [
  '<img src=x onerror=alert(1)><script>alert(2)</script>',
  '😀 ünïcødé \u202Eevil',
  'x'.repeat(5000),
  // Short enough for most limits, one unbreakable word where a message echoes it.
  'w'.repeat(150),
  ' \t ',
  '__proto__',
  'a\u0000b',
  '{"$ne":null} \'; DROP TABLE registry.servers; --',
  '../../etc/passwd%00%0d%0a',
];
const show = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 20)}…(${s.length})` : s);

/** Runs `fn` for each hostile value; a failure names the value it failed with. */
export async function eachHostile(fn: (value: string) => Promise<void>): Promise<void> {
  for (const value of HOSTILE) {
    try {
      await fn(value);
    } catch (err) {
      throw new Error(`with ${show(value)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
}

export interface FormsStack {
  b: ConsoleBrowser;
  p: Page;
  registry: Proc;
  upstream: Awaited<ReturnType<typeof startDocsUpstream>>;
  key: string;
  close(): Promise<void>;
}

export async function startFormsStack(): Promise<FormsStack> {
  const env = testEnv();
  const b = await openConsoleBrowser();
  const db = await createDatabase();
  const upstream = await startDocsUpstream();
  const registry = await startRegistry(env, db.url, { GATEWAY_PUBLIC_URL: `http://127.0.0.1:${await freePort()}` });
  const key = await createTenant(registry.url, env.operatorKey, 'acme');
  return {
    b,
    p: b.page,
    registry,
    upstream,
    key,
    close: async () => {
      await b.close();
      await registry.stop();
      await upstream.close();
      await db.drop();
      await cleanRedis(env);
    },
  };
}

/** The page helpers of the form specs. */
export function formHelpers(p: Page) {
  const nav = (label: string) =>
    p.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: label, exact: true }).click();
  const heading = (name: string) => p.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
  return {
    nav,
    heading,
    submit: (name: string) => p.getByRole('button', { name, exact: true }).click(),
    /** A fresh copy of a console page (remounted: no state left from an earlier submit), by way of another page. */
    fresh: async (label: string) => {
      const other = label === 'Connect' ? 'Activity' : 'Connect';
      await nav(other);
      await heading(other);
      await nav(label);
      await heading(label);
    },
  };
}

/** Signs in with the tenant's API key onto Home. */
export async function signInWithKeyOnHome(s: FormsStack): Promise<void> {
  await s.p.goto(`${s.registry.url}/console/`);
  await s.p.getByLabel('Tenant API key').fill(s.key);
  await s.p.getByRole('button', { name: 'Sign in', exact: true }).click();
  await s.p.getByRole('heading', { name: 'Home', exact: true, level: 1 }).waitFor();
}
