// Shared by the console browser tests: Debian's Chromium driven by playwright-core, with every
// uncaught page error, unexpected console error and 5xx answer recorded as a problem, screenshots
// under test-artifacts/console/, and the checks every form error must pass.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { freePort, pollUntil } from '@switchboard/testing';
import { REPO_ROOT } from './harness';

export const CHROMIUM = '/usr/bin/chromium';
export const SHOTS = path.join(REPO_ROOT, 'test-artifacts/console');

/** What the error boundary shows instead of a page that threw while rendering. */
export const BOUNDARY_TEXT = 'This page hit an unexpected error';

/** A free loopback port (the registry and the issuer each need the other's URL before they start). */
export { freePort };

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /**
   * Uncaught page errors, console errors other than the browser's own "Failed to load resource" line
   * for a refused (4xx) request — which is how every API refusal looks — any 5xx answer, and any dialog.
   */
  problems: string[];
  /** A full-page screenshot at test-artifacts/console/<name>.png. */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Launches one headless Chromium (1280×800, as the console is laid out) for a whole test file. */
export async function openConsoleBrowser(): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: run scripts/ensure-chromium.sh (installs Debian's chromium) before the console browser tests`);
  if (!existsSync(path.join(REPO_ROOT, 'apps/console/dist/index.html')))
    throw new Error('apps/console/dist is missing: run `npx vite build apps/console` first');
  await mkdir(SHOTS, { recursive: true });
  const profile = await mkdtemp(path.join(tmpdir(), 'sb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    chromiumSandbox: false,
    viewport: { width: 1280, height: 800 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    if (/^Failed to load resource: the server responded with a status of 4\d\d\b/.test(text)) return;
    problems.push(`console.error: ${text} (${msg.location().url})`);
  });
  // No test clicks a button that asks for confirmation: any dialog is injected script (or a bug).
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.type()} ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('response', (res) => {
    if (res.status() >= 500) problems.push(`HTTP ${res.status()} from ${res.request().method()} ${res.url()}`);
  });
  return {
    context,
    page,
    problems,
    shot: async (name) => {
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
    },
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The field `id` shows an error matching `pattern` the way the UI ties it to the control: an element
 * `#<id>-error` beside the control (same parent: the console's `.field`, the issuer's field `div`),
 * named by the control's `aria-describedby`, with `aria-invalid="true"` on the control. Returns its text.
 */
export async function expectFieldError(page: Page, id: string, pattern: RegExp): Promise<string> {
  const control = page.locator(`[id="${id}"]`);
  const error = control.locator('xpath=..').locator(`[id="${id}-error"]`);
  await error.waitFor();
  const text = (await error.textContent()) ?? '';
  expect(text).toMatch(pattern);
  expect(await control.getAttribute('aria-invalid')).toBe('true');
  expect((await control.getAttribute('aria-describedby'))?.split(' ')).toContain(`${id}-error`);
  return text;
}

/** No error line for the field `id`. */
export async function expectNoFieldError(page: Page, id: string): Promise<void> {
  expect(await page.locator(`[id="${id}-error"]`).count()).toBe(0);
  expect(await page.locator(`[id="${id}"]`).getAttribute('aria-invalid')).toBeNull();
}

/**
 * The id of the focused element once it is `expected` (polled up to 5 s: a form moves focus in
 * the effect after the render that shows the error), else of whatever holds focus by then.
 * Polled from the test through `:focus`, not with `waitForFunction`: a string predicate that has
 * to poll is evaluated in the page, where the console's CSP (no 'unsafe-eval') refuses it and
 * the page reports an error.
 */
export async function focusedId(page: Page, expected: string): Promise<string | null> {
  const focused = () =>
    page
      .locator(':focus')
      .getAttribute('id', { timeout: 1_000 })
      .catch(() => null);
  return pollUntil(`focus on #${expected}`, async () => (await focused()) === expected && expected, 5_000).catch(() => focused());
}

/**
 * The page still renders: a level-1 heading is visible, the error boundary's fallback is not shown,
 * no uncaught error, unexpected console error or 5xx answer happened so far, and the page is no
 * wider than the window.
 */
export async function expectIntact(b: ConsoleBrowser, within: Locator | Page = b.page): Promise<void> {
  await within.locator('h1').first().waitFor();
  expect(await b.page.getByText(BOUNDARY_TEXT).count()).toBe(0);
  expect(b.problems).toEqual([]);
  // Nothing typed (a 5000-character word echoed in a message) pushes the layout sideways.
  const overflow = await b.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
  expect(overflow).toBe(0);
}

/**
 * Signs the console in with a tenant API key (signing out first when a session is open) and opens
 * the page named `page` from the navigation, waiting for its heading.
 */
export async function signInWithKey(page: Page, registryUrl: string, apiKey: string, pageLabel: string): Promise<void> {
  await page.goto(`${registryUrl}/console/`);
  const signInForm = page.getByLabel('Tenant API key');
  const signOut = page.getByRole('button', { name: 'Sign out', exact: true });
  await signInForm.or(signOut).first().waitFor();
  if (await signOut.isVisible()) {
    await signOut.click();
    await signInForm.waitFor();
  }
  await signInForm.fill(apiKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('navigation', { name: 'Console pages' }).getByRole('link', { name: pageLabel, exact: true }).click();
  await page.getByRole('heading', { name: pageLabel, exact: true, level: 1 }).waitFor();
}

/**
 * Opens the editor drawer of one tool from the Tools table (the page must be showing it) and
 * returns the drawer's form, `tool-<server>-<tool>`.
 */
export async function openTool(page: Page, server: string, tool: string): Promise<Locator> {
  const base = `tool-${server}-${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  await page
    .getByTestId(`row-${base}`)
    .getByRole('link', { name: /^Edit / })
    .click();
  const form = page.getByTestId('tool-drawer').getByTestId(base);
  await form.waitFor();
  return form;
}
