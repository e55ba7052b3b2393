/** The three hints publishing requires, for a tool that only reads. */
const HINTS = '{ readOnlyHint: true, destructiveHint: false, openWorldHint: false }';

export interface TenantYamlOptions {
  alphaUrl: string;
  betaUrl: string;
  /** beta's `shout` description override. */
  betaDescription?: string;
  /** Extra server entries (YAML lines at list-item indentation). */
  extraServers?: string;
}

/**
 * The test's tenant file: two servers with secrets by env reference, an exposed-name override,
 * title and description overrides, a Claude surface rule and a rate plan.
 */
export function tenantYaml(o: TenantYamlOptions): string {
  return `# yaml-language-server: $schema=../../apps/cli/schema/tenant-file.schema.json
version: 1
tenant:
  name: Acme as code
  instructions: Use the shout tools.
surfaceRules:
  surfaces:
    claude:
      maxDescriptionLength: 12
limits:
  rate:
    tenant: { requestsPerSecond: 50, burst: 100 }
servers:
  - id: alpha
    name: Alpha
    url: ${o.alphaUrl}
    auth:
      mode: bearer
      token: { fromEnv: ALPHA_TOKEN }
    publish:
      - name: shout
        exposedName: loud
        overrides:
          title: Loud
          annotations: ${HINTS}
      - name: whoami
        overrides:
          annotations: ${HINTS}
  - id: beta
    name: Beta
    url: ${o.betaUrl}
    timeoutMs: 5000
    auth:
      mode: header
      header: x-api-key
      value: { fromEnv: BETA_KEY }
    publish:
      - name: shout
        overrides:
          description: ${o.betaDescription ?? 'Shouts from the beta server'}
          annotations: ${HINTS}
${o.extraServers ?? ''}`;
}
