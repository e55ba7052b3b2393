import { deploymentMode, isLoopbackHost } from './deployment-mode';

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    '%s is loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
    },
  );

  it.each([
    '0.0.0.0',
    '::',
    '[::]',
    '10.0.0.5',
    '192.168.1.2',
    '::ffff:10.0.0.1',
    'fe80::1',
    'gateway',
    'localhost.example.com',
    '128.0.0.1',
    '',
  ])('%s is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('deploymentMode', () => {
  const exposed = { variable: 'GATEWAY_HOST', host: '0.0.0.0' };
  const loopback = { variable: 'GATEWAY_HOST', host: '127.0.0.1' };

  it('is production on a non-loopback address when SWITCHBOARD_ENV is unset, saying why and how to run development', () => {
    expect(deploymentMode(undefined, exposed)).toEqual({
      env: 'production',
      reason:
        'production: GATEWAY_HOST=0.0.0.0 is not a loopback address and SWITCHBOARD_ENV is not set; for a development run set SWITCHBOARD_ENV=development',
    });
  });

  it('is development on loopback when SWITCHBOARD_ENV is unset (local runs and tests)', () => {
    expect(deploymentMode(undefined, loopback).env).toBe('development');
  });

  it('follows SWITCHBOARD_ENV when it is set, whatever the address', () => {
    expect(deploymentMode('development', exposed)).toEqual({ env: 'development', reason: 'SWITCHBOARD_ENV=development' });
    expect(deploymentMode('production', loopback)).toEqual({ env: 'production', reason: 'SWITCHBOARD_ENV=production' });
  });
});
