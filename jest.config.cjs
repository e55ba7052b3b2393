const preset = require('./jest.preset.cjs');

/** One jest project per workspace package; `npm run test:unit -- --selectProjects gateway` runs one. */
module.exports = {
  testTimeout: 60_000,
  projects: [
    preset('protocol', 'libs/protocol'),
    preset('catalog', 'libs/catalog'),
    preset('secret-box', 'libs/secret-box'),
    preset('tenant-config', 'libs/tenant-config'),
    preset('net-guard', 'libs/net-guard'),
    preset('guardrails', 'libs/guardrails'),
    preset('upstream-client', 'libs/upstream-client'),
    preset('telemetry', 'libs/telemetry'),
    preset('mcp-http', 'libs/mcp-http'),
    preset('limits', 'libs/limits'),
    preset('redis-connection', 'libs/redis-connection'),
    preset('fixtures', 'libs/fixtures'),
    preset('testing', 'libs/testing'),
    preset('gateway', 'apps/gateway'),
    preset('chain-reader', 'apps/chain-reader'),
    preset('registry', 'apps/registry'),
    preset('auth', 'apps/auth'),
    preset('cli', 'apps/cli'),
  ],
};
