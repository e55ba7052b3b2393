import { Writable } from 'node:stream';
import { accessLogHook } from './access-log-hook';
import { createLogger } from './create-logger';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'spec', destination }) };
}

const req = { method: 'GET', url: '/oauth/callback?code=secret-code&state=x', ip: '10.0.0.1', routeOptions: { url: '/oauth/callback' } };

describe('accessLogHook', () => {
  it('samples successes at the rate, logs errors, and never writes the query string', async () => {
    const { lines, logger } = capture();
    let r = 0;
    // Deterministic "random": 0, 0.25, 0.5, 0.75, … so a rate of 0.5 keeps every other line.
    const hook = accessLogHook(logger, { sampleRate: 0.5, errorSampleRate: 1, random: () => (r++ % 4) / 4, env: {} });
    for (let i = 0; i < 8; i++) await hook(req, { statusCode: 200, elapsedTime: 1.234 });
    await hook(req, { statusCode: 401 });
    expect(lines.filter((l) => l.status === 200)).toHaveLength(4);
    expect(lines.filter((l) => l.status === 401)).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'access',
      method: 'GET',
      path: '/oauth/callback',
      route: '/oauth/callback',
      duration_ms: 1.2,
      ip: '10.0.0.1',
    });
    expect(JSON.stringify(lines)).not.toContain('secret-code');
  });

  it('caps lines per second whatever the rate, and reads rates from the environment', async () => {
    const { lines, logger } = capture();
    const hook = accessLogHook(logger, {
      maxPerSecond: 3,
      now: () => 5_000,
      env: { ACCESS_LOG_ERROR_SAMPLE_RATE: '1', ACCESS_LOG_SAMPLE_RATE: '0' },
    });
    for (let i = 0; i < 10; i++) await hook(req, { statusCode: 403 });
    for (let i = 0; i < 10; i++) await hook(req, { statusCode: 200 });
    expect(lines).toHaveLength(3);
  });
});
