import { setTimeout as delay } from 'node:timers/promises';
import { CliError, EXIT } from '../exit-codes';
import { issuerMetadata, oauthRefusal, postForm, storedLogin } from './oauth';
import { CLI_CLIENT_ID } from './pkce-login';
import type { StoredLogin } from './token-store';

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** Never poll faster than this, whatever the issuer says (RFC 8628 §3.5: 5 s by default). */
const MIN_INTERVAL_S = 1;
/** Never wait longer than this, whatever `expires_in` says. */
const MAX_WAIT_S = 15 * 60;

export interface DeviceLoginOptions {
  issuer: string;
  resource: string;
  /** Shows where to go and which code to enter. */
  show: (prompt: { verificationUri: string; verificationUriComplete?: string; userCode: string }) => void;
}

/**
 * Device authorization (RFC 8628) for a machine without a browser: asks the issuer for a device
 * and user code, shows where to enter the code, then polls the token endpoint at the interval the
 * issuer sets (slower after `slow_down`) until the person signs in, refuses, or the code expires.
 */
export async function deviceLogin(o: DeviceLoginOptions): Promise<StoredLogin> {
  const metadata = await issuerMetadata(o.issuer);
  if (!metadata.device_authorization_endpoint) {
    throw new CliError(`issuer: ${o.issuer} offers no device authorization; sign in with a browser (switchboard login)`, EXIT.usage, {
      code: 'DEVICE_FLOW_UNSUPPORTED',
      field: 'issuer',
    });
  }
  const start = await postForm(metadata.device_authorization_endpoint, {
    client_id: CLI_CLIENT_ID,
    scope: 'console',
    resource: o.resource,
  });
  const {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: complete,
    expires_in: expiresIn,
    interval,
  } = start.body as Record<string, unknown>;
  if (start.status !== 200 || typeof deviceCode !== 'string' || typeof userCode !== 'string' || typeof verificationUri !== 'string')
    throw oauthRefusal('the device authorization', start.status, start.body);
  o.show({ verificationUri, userCode, ...(typeof complete === 'string' ? { verificationUriComplete: complete } : {}) });
  let every = Math.max(MIN_INTERVAL_S, typeof interval === 'number' ? interval : 5);
  const until = Date.now() + Math.min(MAX_WAIT_S, typeof expiresIn === 'number' ? expiresIn : MAX_WAIT_S) * 1000;
  while (Date.now() < until) {
    await delay(every * 1000);
    const { status, body } = await postForm(metadata.token_endpoint, {
      grant_type: DEVICE_CODE_GRANT,
      device_code: deviceCode,
      client_id: CLI_CLIENT_ID,
    });
    if (status === 200 && typeof body.access_token === 'string') {
      return storedLogin(metadata, CLI_CLIENT_ID, o.resource, {
        access_token: body.access_token,
        refresh_token: body.refresh_token,
        expires_in: body.expires_in,
      });
    }
    if (body.error === 'authorization_pending') continue;
    if (body.error === 'slow_down') {
      every += 5;
      continue;
    }
    throw oauthRefusal('the device sign-in', status, body);
  }
  throw new CliError('login: the device code expired before the sign-in finished; run switchboard login --device again', EXIT.auth, {
    code: 'LOGIN_TIMEOUT',
  });
}
