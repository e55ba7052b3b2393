// Shared jest settings: @swc/jest for speed (type checking is the separate `typecheck` step),
// workspace libs resolved to their sources so tests never need a prior build, and the
// ESM-only packages (jose, openid-client, oauth4webapi, cockatiel, @marcbachmann/cel-js) transformed to CommonJS.
const path = require('node:path');

const ESM_ONLY = ['jose', 'openid-client', 'oauth4webapi', 'cockatiel', '@marcbachmann/cel-js'];
const root = __dirname;

/** @param {string} name project name, @param {string} dir project folder relative to the root */
module.exports = (name, dir) => ({
  displayName: name,
  rootDir: path.join(root, dir),
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/e2e/**/*.spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
    '^.+\\.m?js$': ['@swc/jest', { module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper: {
    '^@switchboard/(protocol|catalog|mcp-http|net-guard|guardrails|telemetry|secret-box|tenant-config|limits|redis-connection|fixtures|testing|upstream-client)$':
      path.join(root, 'libs/$1/src/index.ts'),
  },
});
