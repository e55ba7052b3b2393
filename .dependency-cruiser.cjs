// Import boundaries, checked by `npm run boundaries` (docs/ARCHITECTURE.md describes the rooms).
//
// A workspace import is matched both as the resolved file (`libs/catalog/src/…`, `libs/catalog/dist/…`)
// and as the bare name (`@switchboard/catalog`, when dist/ is not built yet), so the check gives the
// same answer before and after `tsc -b`.

/** The lib graph, bottom up: a lib may import only libs of a lower layer (never its own layer, never an app). */
const LIB_LAYERS = [
  ['protocol', 'net-guard', 'secret-box', 'telemetry', 'redis-connection', 'admin-api', 'guardrails'],
  ['catalog', 'upstream-client'],
  ['limits', 'mcp-http', 'tenant-config', 'fixtures'],
  // Test-only harness pieces; may use any lib (rule no-testing-in-production keeps it out of production code).
  ['testing'],
];
const APPS = ['auth', 'chain-reader', 'cli', 'console', 'gateway', 'registry'];

/** Matches an import of workspace package `name` (folder `dir`) by path or by bare name. */
const ws = (dir, names) => `^(?:${dir}/(?:${names.join('|')})/|@switchboard/(?:${names.join('|')})(?:/|$))`;

/**
 * Cross-app imports between test harnesses that remain. Shared harness pieces live in libs/testing;
 * what is left boots a neighbour service in-process from its src (auth + gateway together for the
 * platform tests) or checks another app's config loader. Narrow on purpose: new entries need a reason
 * here; the way out is libs/testing, or booting the neighbour's build as a process (libs/testing built-apps.ts).
 */
const E2E_EXCEPTIONS = [
  // The ops specs check each app's config loader against the k8s manifests (config is the contract under test).
  ['^apps/gateway/e2e/ops-(?:manifests-support|k8s\\.spec|compose\\.spec)\\.ts$', '^apps/(?:auth|chain-reader|registry)/src/config\\.ts$'],
  // auth's platform harness boots a gateway in-process (and injects MCP paths into its edge instance).
  ['^apps/auth/e2e/support/platform\\.ts$', '^apps/gateway/src/(?:config/config|create-gateway|gateway-runtime|edge-server)\\.ts$'],
  // registry e2e boots the auth service in-process (its harness) to sign in; the browser and OAuth flow are libs/testing's.
  // token-exchange-grant adds RFC 8693 / JWT-bearer grants to test-idp's oidc-provider (connector specs).
  ['^apps/registry/e2e/[^/]+\\.spec\\.ts$', '^apps/auth/e2e/support/(?:auth-harness|test-idp|platform|token-exchange-grant)\\.ts$'],
];

/**
 * The registry's folders (apps/registry/src/<folder>/). Shared folders hold what every feature uses
 * (rows and queries, HTTP plumbing, OpenAPI annotations, sealing, upstream credentials) and import
 * only each other. The pipeline folders, bottom up, may import the shared folders and the pipeline
 * folders before them. Every other folder is a feature: it imports shared and pipeline folders, never
 * another feature. Root files (create-registry.ts, config.ts, …) compose everything and are exempt.
 */
const REGISTRY_SHARED = ['db', 'crypto', 'model', 'http', 'docs', 'credentials'];
const REGISTRY_PIPELINE = ['guardrails', 'discovery', 'publishing'];
// A spec may check that two folders agree (publishing/tool-rules.spec.ts against readiness/check-tools.ts).
const SPEC = '\\.spec\\.ts$';
const registryDir = (names) => `^apps/registry/src/(?:${names.join('|')})/`;
const registryRules = [
  {
    name: 'registry-shared-folder',
    comment: `apps/registry/src/{${REGISTRY_SHARED.join(',')}} import only each other (features and the pipeline build on them).`,
    severity: 'error',
    from: { path: registryDir(REGISTRY_SHARED), pathNot: SPEC },
    to: { path: '^apps/registry/src/[^/]+/', pathNot: registryDir(REGISTRY_SHARED) },
  },
  ...REGISTRY_PIPELINE.map((dir, i) => ({
    name: `registry-pipeline-${dir}`,
    comment: `apps/registry/src/${dir} may import the shared folders and ${REGISTRY_PIPELINE.slice(0, i).join(', ') || 'no other pipeline folder'}.`,
    severity: 'error',
    from: { path: `^apps/registry/src/${dir}/`, pathNot: SPEC },
    to: { path: '^apps/registry/src/[^/]+/', pathNot: registryDir([...REGISTRY_SHARED, ...REGISTRY_PIPELINE.slice(0, i + 1)]) },
  })),
  {
    name: 'registry-feature-folder',
    comment:
      'A registry feature folder imports the shared and pipeline folders, never another feature folder (move what two features share to model/ or http/).',
    severity: 'error',
    from: { path: '^apps/registry/src/([^/]+)/', pathNot: [SPEC, registryDir([...REGISTRY_SHARED, ...REGISTRY_PIPELINE])] },
    to: { path: '^apps/registry/src/[^/]+/', pathNot: ['^apps/registry/src/$1/', registryDir([...REGISTRY_SHARED, ...REGISTRY_PIPELINE])] },
  },
];

const libRules = LIB_LAYERS.flatMap((layer, i) => {
  const lower = LIB_LAYERS.slice(0, i).flat();
  return layer.map((lib) => ({
    name: `lib-graph-${lib}`,
    comment: `libs/${lib} may import only the lower libs: ${lower.join(', ') || '(none)'}.`,
    severity: 'error',
    from: { path: `^libs/${lib}/` },
    to: {
      path: ws('libs', LIB_LAYERS.flat()),
      // libs/testing is exempt here: a lib's tests may use it, and no-testing-in-production keeps it out of every lib's src.
      pathNot: [ws('libs', [lib, 'testing']), ...(lower.length ? [ws('libs', lower)] : [])],
    },
  }));
});

module.exports = {
  forbidden: [
    {
      name: 'no-lib-imports-app',
      comment: 'A lib never imports an app (apps depend on libs, not the other way round).',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: ws('apps', APPS) },
    },
    ...libRules,
    ...registryRules,
    {
      name: 'no-fixtures-in-production',
      comment:
        'libs/fixtures (demo and conformance catalogs) stays out of production code: the gateway imports it by a name held in a variable when a tenant names a builtin (apps/gateway/src/catalog-source/load-fixtures.ts); tests may import it.',
      severity: 'error',
      from: { path: '^(?:apps|libs)/[^/]+/src/', pathNot: ['\\.spec\\.tsx?$', '^libs/fixtures/'] },
      to: { path: ws('libs', ['fixtures']) },
    },
    {
      name: 'no-testing-in-production',
      comment: 'libs/testing holds e2e harness pieces: only tests (specs, e2e/) import it.',
      severity: 'error',
      from: { path: '^(?:apps|libs)/[^/]+/src/', pathNot: ['\\.spec\\.tsx?$', '^libs/testing/'] },
      to: { path: ws('libs', ['testing']) },
    },
    {
      name: 'no-app-imports-app',
      comment: 'An app (src, tests or e2e support) never imports another app; e2e exceptions are listed in E2E_EXCEPTIONS.',
      severity: 'error',
      from: { path: `^apps/(${APPS.join('|')})/`, pathNot: E2E_EXCEPTIONS.map(([from]) => from) },
      to: { path: ws('apps', APPS), pathNot: ['^apps/$1/', '^@switchboard/$1(?:/|$)'] },
    },
    ...E2E_EXCEPTIONS.map(([from, allowed]) => ({
      name: 'e2e-exception',
      comment: 'A listed e2e file may reach only the neighbour files named for it.',
      severity: 'error',
      from: { path: from },
      to: { path: ws('apps', APPS), pathNot: [allowed, `^apps/${from.match(/apps\/([^/]+)\//)[1]}/`] },
    })),
    {
      name: 'no-circular',
      comment: 'No import cycle (also checked by `npm run cycles`).',
      severity: 'error',
      from: { path: '^(?:libs|apps)/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules', '/dist/'] },
    exclude: { path: ['(^|/)dist/', '(^|/)node_modules/', '\\.d\\.ts$'] },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
