import { randomBytes } from 'node:crypto';
import { loadAuthConfig } from './config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x', LOG_LEVEL: 'silent', TENANTS_FILE: '/nonexistent/tenants.yaml' };

describe('loadAuthConfig: production is the default off loopback', () => {
  it('refuses every development default in one error when bound to a non-loopback address without SWITCHBOARD_ENV', () => {
    expect(() => loadAuthConfig({ ...base, AUTH_HOST: '0.0.0.0' })).toThrow(
      new RegExp(
        [
          '^Invalid auth configuration \\(production: AUTH_HOST=0\\.0\\.0\\.0 is not a loopback address and SWITCHBOARD_ENV is not set; for a development run set SWITCHBOARD_ENV=development\\):',
          '  SECRETS_KEY: is required in production; unset, it falls back to the public development key',
          "  CATALOG_SECRETS_KEY: is required in production; unset, it falls back to the registry's public development key",
        ].join('[^\\n]*\\n'),
      ),
    );
  });

  it('reports the mode in force, which development-only features check', () => {
    const keys = { SECRETS_KEY: randomBytes(32).toString('base64'), CATALOG_SECRETS_KEY: randomBytes(32).toString('base64') };
    expect(loadAuthConfig({ ...base, ...keys, AUTH_HOST: '0.0.0.0' }).SWITCHBOARD_ENV).toBe('production');
    expect(loadAuthConfig({ ...base, AUTH_HOST: '0.0.0.0', SWITCHBOARD_ENV: 'development' }).SWITCHBOARD_ENV).toBe('development');
    expect(loadAuthConfig(base).SWITCHBOARD_ENV).toBe('development');
  });
});
