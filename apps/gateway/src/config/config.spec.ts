import { randomBytes } from 'node:crypto';
import { loadGatewayConfig } from './config';

const key = () => randomBytes(32).toString('base64');

describe('loadGatewayConfig: production is the default off loopback', () => {
  it('refuses every development default in one error when bound to a non-loopback address without SWITCHBOARD_ENV', () => {
    expect(() => loadGatewayConfig({ GATEWAY_HOST: '0.0.0.0', REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      new RegExp(
        [
          '^Invalid gateway configuration \\(production: GATEWAY_HOST=0\\.0\\.0\\.0 is not a loopback address and SWITCHBOARD_ENV is not set; for a development run set SWITCHBOARD_ENV=development\\):',
          '  SECRETS_KEY: is required in production; unset, it falls back to the public development key',
          '  INTERNAL_TOKEN: is required in production',
          '  GATEWAY_STATE_KEYS: is required in production; unset, it falls back to keys derived from SECRETS_KEY, or a random key per process',
        ].join('[^\\n]*\\n'),
      ),
    );
  });

  it('requires GATEWAY_STATE_KEYS in production even when it serves only file tenants', () => {
    expect(() => loadGatewayConfig({ SWITCHBOARD_ENV: 'production' })).toThrow(
      /^Invalid gateway configuration \(SWITCHBOARD_ENV=production\):\n {2}GATEWAY_STATE_KEYS: is required in production[^\n]*$/,
    );
    expect(() =>
      loadGatewayConfig({
        SWITCHBOARD_ENV: 'production',
        GATEWAY_STATE_KEYS: Buffer.from('switchboard-dev-state-key-000000').toString('base64'),
      }),
    ).toThrow(/GATEWAY_STATE_KEYS: the key is a development or placeholder key/);
    expect(loadGatewayConfig({ SWITCHBOARD_ENV: 'production', GATEWAY_STATE_KEYS: `${key()},${key()}` }).SWITCHBOARD_ENV).toBe(
      'production',
    );
  });

  it('keeps the development defaults on loopback without SWITCHBOARD_ENV, and anywhere with SWITCHBOARD_ENV=development', () => {
    expect(loadGatewayConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).SWITCHBOARD_ENV).toBe('development');
    expect(
      loadGatewayConfig({ GATEWAY_HOST: '0.0.0.0', REDIS_URL: 'redis://127.0.0.1:6379', SWITCHBOARD_ENV: 'development' }).SWITCHBOARD_ENV,
    ).toBe('development');
  });
});
