import type { AuthMode, Server } from './api';
import { Field, SelectField } from './ui';

/** The auth part of the server forms: the mode and every field any mode uses (only the mode's own are sent). */
export interface AuthForm {
  mode: AuthMode;
  token: string;
  header: string;
  value: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  audience: string;
  authorizationServer: string;
}

export const AUTH_MODES: Array<{ value: AuthMode; label: string }> = [
  { value: 'none', label: 'None (public server)' },
  { value: 'bearer', label: 'Bearer token' },
  { value: 'header', label: 'Custom header (API key)' },
  { value: 'oauth_client_credentials', label: 'OAuth client credentials' },
  { value: 'oauth_user', label: 'OAuth per user (each user signs in)' },
];

function isMode(m: string): m is AuthMode {
  return AUTH_MODES.some((x) => x.value === m);
}

/** A blank auth form, or one prefilled with a server's non-secret settings (secrets are never sent back by the API). */
export function authForm(server?: Server): AuthForm {
  const a = server?.auth;
  return {
    mode: a && isMode(a.mode) ? a.mode : 'none',
    token: '',
    header: a?.header ?? '',
    value: '',
    tokenUrl: a?.tokenUrl ?? '',
    clientId: a?.clientId ?? '',
    clientSecret: '',
    scope: a?.scope ?? '',
    audience: a?.audience ?? '',
    authorizationServer: a?.authorizationServer ?? '',
  };
}

/** The `auth` body of POST/PATCH /v1/servers for the chosen mode. */
export function authBody(f: AuthForm): Record<string, string> {
  const opt = (o: Record<string, string>, k: string, v: string) => {
    if (v.trim()) o[k] = v.trim();
    return o;
  };
  switch (f.mode) {
    case 'bearer':
      return { mode: 'bearer', token: f.token };
    case 'header':
      return { mode: 'header', header: f.header.trim(), value: f.value };
    case 'oauth_client_credentials':
      return opt(
        opt({ mode: f.mode, tokenUrl: f.tokenUrl.trim(), clientId: f.clientId.trim(), clientSecret: f.clientSecret }, 'scope', f.scope),
        'audience',
        f.audience,
      );
    case 'oauth_user':
      return opt(opt({ mode: f.mode }, 'authorizationServer', f.authorizationServer), 'scope', f.scope);
    default:
      return { mode: 'none' };
  }
}

/**
 * The `auth` of a live URL check: the bearer token or header the form holds, used for that one
 * request. Anything else is checked without a credential (the registry probes OAuth servers
 * without one too: their 401 still proves an MCP server is there), so a half-filled form never
 * turns the check into a complaint about fields the user has not reached yet.
 */
export function checkAuthBody(f: AuthForm): Record<string, string> {
  if (f.mode === 'bearer' && f.token.trim()) return authBody(f);
  if (f.mode === 'header' && f.header.trim() && f.value.trim()) return authBody(f);
  return { mode: 'none' };
}

/**
 * Fields the chosen mode requires but the form leaves empty (checked before sending: the API has no
 * "keep the stored secret", so an edit must enter it again — `editing` says so in the message).
 */
export function missingAuthFields(f: AuthForm, prefix: string, editing = false): Record<string, string> {
  const out: Record<string, string> = {};
  const again = editing ? ' (the stored one is never shown, so enter it again)' : '';
  const need = (key: keyof AuthForm, id: string, msg: string) => {
    if (!f[key].trim()) out[`${prefix}-${id}`] = msg;
  };
  if (f.mode === 'bearer') need('token', 'token', `Enter the token your server expects${again}.`);
  if (f.mode === 'header') {
    need('header', 'header', 'Enter the header name, e.g. X-API-Key.');
    need('value', 'value', `Enter the header value${again}.`);
  }
  if (f.mode === 'oauth_client_credentials') {
    need('tokenUrl', 'tokenUrl', 'Enter the token endpoint URL.');
    need('clientId', 'clientId', 'Enter the client id.');
    need('clientSecret', 'clientSecret', `Enter the client secret${again}.`);
  }
  return out;
}

/** API field (without `body.`) → DOM id of the auth fields, for splitError. */
export function authFieldIds(prefix: string): Record<string, string> {
  const ids: Record<string, string> = { auth: `${prefix}-mode`, 'auth.mode': `${prefix}-mode` };
  for (const k of ['token', 'header', 'value', 'tokenUrl', 'clientId', 'clientSecret', 'scope', 'audience', 'authorizationServer'])
    ids[`auth.${k}`] = `${prefix}-${k}`;
  return ids;
}

/** The mode select and the fields of the chosen mode, each with its error line. */
export function AuthFields({
  prefix,
  form,
  set,
  errors,
}: {
  prefix: string;
  form: AuthForm;
  set: (f: AuthForm) => void;
  errors: Record<string, string>;
}) {
  const field = (key: keyof AuthForm) => ({
    id: `${prefix}-${key}`,
    value: form[key],
    onInput: (v: string) => set({ ...form, [key]: v }),
    error: errors[`${prefix}-${key}`],
  });
  return (
    <div class="auth-fields">
      <SelectField
        id={`${prefix}-mode`}
        label="Authentication"
        value={form.mode}
        onChange={(v) => isMode(v) && set({ ...form, mode: v })}
        options={AUTH_MODES}
        error={errors[`${prefix}-mode`]}
      />
      {form.mode === 'bearer' && (
        <Field
          {...field('token')}
          label="Bearer token"
          type="password"
          hint="Sent to your server as Authorization: Bearer on every call; stored encrypted, never shown again."
        />
      )}
      {form.mode === 'header' && (
        <div class="grid2">
          <Field {...field('header')} label="Header name" placeholder="X-API-Key" />
          <Field {...field('value')} label="Header value" type="password" hint="Stored encrypted, never shown again." />
        </div>
      )}
      {form.mode === 'oauth_client_credentials' && (
        <>
          <Field {...field('tokenUrl')} label="Token URL" type="url" placeholder="https://auth.example.com/oauth/token" />
          <div class="grid2">
            <Field {...field('clientId')} label="Client id" />
            <Field {...field('clientSecret')} label="Client secret" type="password" hint="Stored encrypted, never shown again." />
            <Field {...field('scope')} label="Scope (optional)" />
            <Field {...field('audience')} label="Audience (optional)" />
          </div>
        </>
      )}
      {form.mode === 'oauth_user' && (
        <div class="grid2">
          <Field
            {...field('authorizationServer')}
            label="Authorization server (optional)"
            type="url"
            hint="Each user signs in to your server through the platform; leave empty to use the one your server advertises."
          />
          <Field {...field('scope')} label="Scope (optional)" />
        </div>
      )}
    </div>
  );
}
