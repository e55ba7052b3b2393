import { z } from 'zod';

// The console sign-in routes read their query by hand (a bad value ends in a redirect, never a 400): these only document it.
const text = z.string().optional();

export const consoleLoginQuery = z.object({
  workspace: text.describe('Tenant id to prefill at the issuer (login_hint)'),
  returnTo: text.describe('Console hash route to land on after sign-in, e.g. #/tools'),
});

export const consoleCallbackQuery = z.object({
  code: text.describe('Authorization code'),
  state: text.describe('Must match the sign-in cookie'),
  iss: text.describe('RFC 9207 issuer; must equal CONSOLE_ISSUER when present'),
  error: text.describe('OAuth error from the issuer (access_denied, …)'),
});
