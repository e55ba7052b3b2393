import { spawn } from 'node:child_process';
import { deviceLogin } from '../auth/device-login';
import { pkceLogin } from '../auth/pkce-login';
import { saveLogin } from '../auth/token-store';
import { ENV, registryUrl } from '../credentials';
import { usageError } from '../exit-codes';
import { str, type Command } from './command';

/** Best effort: the platform's browser opener; the URL is printed either way. */
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

const login: Command = {
  name: 'login',
  summary: 'Sign in through the platform issuer (browser with PKCE, or --device) and keep the tokens for this registry',
  positionals: { min: 0, max: 0 },
  details: [
    'Tokens are stored owner-only in $SWITCHBOARD_CONFIG_DIR (default ~/.config/switchboard/credentials.json) and refreshed when due.',
    'SWITCHBOARD_API_KEY or SWITCHBOARD_TOKEN, when set, take precedence over a stored login.',
  ],
  options: {
    issuer: {
      type: 'string',
      value: '<url>',
      description: `the platform issuer, e.g. https://auth.example/platform (default: $${ENV.issuer})`,
    },
    'no-browser': { type: 'boolean', description: 'only print the sign-in URL (do not try to open a browser)' },
    device: {
      type: 'boolean',
      description: 'device authorization (RFC 8628): enter a code on any other device; for machines without a browser',
    },
  },
  async run(ctx) {
    const registry = registryUrl(ctx.io.env, str(ctx.flags, 'registry'));
    const issuer = (str(ctx.flags, 'issuer') ?? ctx.io.env[ENV.issuer])?.replace(/\/+$/, '');
    if (!issuer) throw usageError(`--issuer: set ${ENV.issuer} (or pass --issuer) to the platform issuer's URL`, 'issuer');
    const resource = `${registry}/v1`;
    const stored = ctx.flags.device
      ? await deviceLogin({
          issuer,
          resource,
          show: (p) =>
            ctx.io.stderr(
              `To sign in, open ${p.verificationUri} and enter the code ${p.userCode}${p.verificationUriComplete ? `\n(or open ${p.verificationUriComplete})` : ''}`,
            ),
        })
      : await pkceLogin({
          issuer,
          resource,
          open: (url) => {
            ctx.io.stderr(`Open this URL to sign in:\n${url}`);
            if (!ctx.flags['no-browser']) openBrowser(url);
          },
        });
    await saveLogin(ctx.io.env, registry, stored);
    const session = await ctx.client().call('getSession');
    ctx.print(session, (s) => `signed in to ${s.tenant} as ${s.user?.username ?? '?'} (${s.role ?? 'unknown role'})`);
  },
};

const logout: Command = {
  name: 'logout',
  summary: 'Forget the stored login for this registry',
  positionals: { min: 0, max: 0 },
  async run(ctx) {
    const registry = registryUrl(ctx.io.env, str(ctx.flags, 'registry'));
    await saveLogin(ctx.io.env, registry, undefined);
    ctx.print({ registry, loggedOut: true }, () => `forgot the login for ${registry}`);
  },
};

export const LOGIN_COMMANDS: Command[] = [login, logout];
