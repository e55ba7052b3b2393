import type { KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml } from '../http/html';

/** No script, no outside styles; forms post only to this origin (the provider's own endpoints). */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}code{font-size:1.6em}input,button{font-size:1rem;padding:.4rem}';

function page(ctx: KoaContextWithOIDC, title: string, body: string): void {
  ctx.type = 'html';
  ctx.set('content-security-policy', CSP);
  ctx.set('cache-control', 'no-store');
  ctx.body = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style><h1>${escapeHtml(title)}</h1>${body}</html>`;
}

/**
 * The platform issuer's device-flow pages (RFC 8628 §3.3), in place of oidc-provider's samples:
 * enter the code shown by `switchboard login --device`, confirm it names the CLI, then the
 * console sign-in page takes over. `form` is the provider's own form (with its CSRF field).
 */
export const devicePages = {
  async userCodeInputSource(ctx: KoaContextWithOIDC, form: string, _out: unknown, err: unknown): Promise<void> {
    const failed = err !== undefined && err !== null;
    const message = failed
      ? '<p role="alert">That code is not valid (wrong, used or expired). Check the terminal and try again.</p>'
      : '<p>Enter the code shown in your terminal.</p>';
    page(ctx, 'Sign in a device', `${message}${form}<button type="submit" form="op.deviceInputForm">Continue</button>`);
  },

  async userCodeConfirmSource(
    ctx: KoaContextWithOIDC,
    form: string,
    client: { clientName?: string; clientId: string },
    _deviceInfo: unknown,
    userCode: string,
  ): Promise<void> {
    const name = escapeHtml(client.clientName ?? client.clientId);
    page(
      ctx,
      'Confirm the device',
      `<p><strong>${name}</strong> asks to sign in to Switchboard with the code</p><p><code>${escapeHtml(userCode)}</code></p><p>Continue only if your terminal shows this code and you started the sign-in yourself.</p>${form}<button type="submit" form="op.deviceConfirmForm">Continue</button> <button type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Abort</button>`,
    );
  },

  async successSource(ctx: KoaContextWithOIDC): Promise<void> {
    page(ctx, 'Signed in', '<p>The device is signed in. You can close this page and return to the terminal.</p>');
  },
};
