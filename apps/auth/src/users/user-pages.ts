import type { FastifyReply } from 'fastify';
import { escapeHtml } from '../http/html';

/**
 * Sends one of the directory's pages. Like sendPage (unframeable, no-store), but scripts from
 * this origin may run (the passkey buttons: the SimpleWebAuthn browser bundle and passkey.js,
 * both served by us), fetch may reach this origin only, and no Referer leaves a page whose URL
 * may hold a one-time link token.
 */
export function sendUserPage(reply: FastifyReply, status: number, title: string, bodyHtml: string, scripts: string[] = []): FastifyReply {
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header(
      'content-security-policy',
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    )
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
        `<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.5rem 0}button{margin:.5rem .5rem 0 0}` +
        `.dev{border:3px dashed #b45309;background:#fffbeb;padding:.5rem 1rem;margin-top:2rem}.alert{color:#b91c1c}</style></head>` +
        `<body>${bodyHtml}${scripts.map((s) => `<script src="${escapeHtml(s)}"></script>`).join('')}</body></html>`,
    );
}

/** The two scripts every passkey button needs, under the tenant's mount. */
export function passkeyScripts(mountPath: string): string[] {
  return [`${mountPath}/users/assets/simplewebauthn-browser.js`, `${mountPath}/users/assets/passkey.js`];
}

export interface SignInPageOptions {
  tenantName: string;
  /** `<mount>/interaction/<uid>`. */
  base: string;
  csrf: string;
  directory: boolean;
  dev: boolean;
  username?: string;
  alert?: string;
}

/**
 * The sign-in page of a tenant without an enterprise IdP: the directory's user name + password
 * form and a passkey button; in development only, a visibly marked any-name form below them.
 */
export function signInPage(o: SignInPageOptions): string {
  const alert = o.alert ? `<p role="alert" class="alert" data-testid="alert">${escapeHtml(o.alert)}</p>` : '';
  const directory = o.directory
    ? `<form method="post" action="${escapeHtml(o.base)}/password" data-testid="password-form"><input type="hidden" name="csrf" value="${escapeHtml(o.csrf)}">` +
      `<label>User name <input name="user" autocomplete="username webauthn" required maxlength="64" value="${escapeHtml(o.username ?? '')}"></label>` +
      `<label>Password <input name="password" type="password" autocomplete="current-password" required maxlength="1024"></label>` +
      `<button type="submit">Sign in</button></form>` +
      `<p><button type="button" data-passkey="signin" data-options="${escapeHtml(o.base)}/passkey/options" data-verify="${escapeHtml(o.base)}/passkey/verify" data-csrf="${escapeHtml(o.csrf)}" data-status="passkey-status">Sign in with a passkey</button></p>` +
      `<p role="status" id="passkey-status" data-testid="passkey-status"></p>`
    : '<p role="alert" class="alert">Sign-in is unavailable: this workspace has no user directory configured. Ask the workspace administrator.</p>';
  const dev = o.dev
    ? `<section class="dev" data-testid="dev-login"><h2>Development login</h2><p><strong>Development only:</strong> any user name is accepted, with no password. This form exists because the service runs with SWITCHBOARD_ENV=development; production services never show it.</p>` +
      `<form method="post" action="${escapeHtml(o.base)}/login"><label>User name <input name="username" autocomplete="off" required pattern="[A-Za-z0-9._@-]{1,64}"></label> <button type="submit">Sign in (development)</button></form></section>`
    : '';
  return `<h1>Sign in to ${escapeHtml(o.tenantName)}</h1>${alert}${directory}${dev}`;
}

/** The one answer to a refused directory sign-in: it never says whether the user exists. */
export const DIRECTORY_LOGIN_ERROR = 'Unknown user name or wrong password.';
export const DIRECTORY_UNAVAILABLE = 'Sign-in is temporarily unavailable; try again.';
