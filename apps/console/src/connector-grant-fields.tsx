import type { TenantAuthView } from './tenant-auth-view';
import { Field, SelectField } from './ui';

/** DOM ids of the grant fields. */
export const GRANT_IDS = {
  kind: 'connector-grant-kind',
  resource: 'connector-grant-resource',
  audience: 'connector-grant-audience',
  idpIssuer: 'connector-grant-idp-issuer',
  idpClientId: 'connector-grant-idp-client-id',
  idpClientSecret: 'connector-grant-idp-client-secret',
};
/** API field (PUT /v1/servers/:id/connector) → DOM id. */
export const GRANT_FIELD_IDS = Object.fromEntries(Object.entries(GRANT_IDS).map(([k, id]) => [`grant.${k}`, id]));

export interface GrantForm {
  kind: '' | 'token_exchange' | 'cross_app';
  resource: string;
  audience: string;
  idpIssuer: string;
  idpClientId: string;
  idpClientSecret: string;
}

type ConnectorView = TenantAuthView['connectors'][string];

export function grantFormOf(c: ConnectorView | undefined): GrantForm {
  const g = c?.grant;
  return {
    kind: g?.kind ?? '',
    resource: g?.resource ?? '',
    audience: g?.audience ?? '',
    idpIssuer: g?.kind === 'cross_app' ? g.idpIssuer : '',
    idpClientId: g?.kind === 'cross_app' ? g.idpClientId : '',
    idpClientSecret: '',
  };
}

/** The `grant` of the PUT body: null (linked accounts only) or the chosen kind with what was filled in. */
export function grantBody(g: GrantForm): Record<string, unknown> | null {
  if (g.kind === '') return null;
  const target = {
    ...(g.resource.trim() ? { resource: g.resource.trim() } : {}),
    ...(g.audience.trim() ? { audience: g.audience.trim() } : {}),
  };
  if (g.kind === 'token_exchange') return { kind: 'token_exchange', ...target };
  return {
    kind: 'cross_app',
    idpIssuer: g.idpIssuer.trim(),
    idpClientId: g.idpClientId.trim(),
    ...(g.idpClientSecret ? { idpClientSecret: g.idpClientSecret } : {}),
    ...target,
  };
}

/** A one-word description of a connector's token source, for the table. */
export function grantLabel(c: ConnectorView): string {
  if (c.grant?.kind === 'token_exchange') return 'token exchange, then linked account';
  if (c.grant?.kind === 'cross_app') return `cross-app access via ${c.grant.idpIssuer}, then linked account`;
  return 'linked account';
}

/**
 * Where each user's upstream token comes from: their linked account only, or first from their
 * enterprise identity — RFC 8693 token exchange at the connector's issuer, or cross-app access
 * (an ID-JAG from the enterprise IdP, then JWT-bearer at the connector's issuer).
 */
export function ConnectorGrantFields(props: {
  form: GrantForm;
  current: ConnectorView | undefined;
  errors: Record<string, string>;
  onInput: (k: keyof GrantForm) => (v: string) => void;
}) {
  const { form, errors, onInput } = props;
  const secretSet = props.current?.grant?.kind === 'cross_app' && props.current.grant.idpClientSecretSet;
  return (
    <>
      <SelectField
        id={GRANT_IDS.kind}
        label="Token source"
        value={form.kind}
        onChange={onInput('kind')}
        error={errors[GRANT_IDS.kind]}
        hint="Enterprise identity first: users need not link an account; a linked account is still used when the exchange is refused."
        options={[
          { value: '', label: 'Linked account only' },
          { value: 'token_exchange', label: 'Token exchange (RFC 8693) at the connector issuer' },
          { value: 'cross_app', label: 'Cross-app access (ID-JAG from the enterprise IdP)' },
        ]}
      />
      {form.kind !== '' && (
        <div class="grid2">
          {form.kind === 'cross_app' && (
            <>
              <Field
                id={GRANT_IDS.idpIssuer}
                label="Enterprise IdP issuer URL"
                type="url"
                value={form.idpIssuer}
                onInput={onInput('idpIssuer')}
                error={errors[GRANT_IDS.idpIssuer]}
              />
              <Field
                id={GRANT_IDS.idpClientId}
                label="Client id at the enterprise IdP"
                value={form.idpClientId}
                onInput={onInput('idpClientId')}
                error={errors[GRANT_IDS.idpClientId]}
              />
              <Field
                id={GRANT_IDS.idpClientSecret}
                label="Client secret at the enterprise IdP"
                type="password"
                value={form.idpClientSecret}
                onInput={onInput('idpClientSecret')}
                error={errors[GRANT_IDS.idpClientSecret]}
                hint={secretSet ? 'A secret is stored (never shown). Leave empty to keep it.' : 'Leave empty for a public client.'}
              />
            </>
          )}
          <Field
            id={GRANT_IDS.resource}
            label="Upstream resource (optional)"
            type="url"
            value={form.resource}
            onInput={onInput('resource')}
            error={errors[GRANT_IDS.resource]}
            hint="Sent as `resource`: the upstream MCP server's URL."
          />
          <Field
            id={GRANT_IDS.audience}
            label="Audience (optional)"
            value={form.audience}
            onInput={onInput('audience')}
            error={errors[GRANT_IDS.audience]}
            hint={
              form.kind === 'cross_app'
                ? "The ID-JAG's audience; defaults to the connector issuer."
                : 'Sent as `audience` when the exchange needs one.'
            }
          />
        </div>
      )}
    </>
  );
}
