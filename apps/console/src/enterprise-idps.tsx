import { useState } from 'preact/hooks';
import { api } from './api';
import { FormFooter, SubmitButton } from './form-footer';
import type { TenantAuthView } from './tenant-auth-view';
import { Allowed, useCan } from './role';
import { IdJagCheck } from './id-jag-check';
import { DataTable, Empty, Field, useFormSubmit } from './ui';

type TrustedIdp = NonNullable<TenantAuthView['enterpriseIdps']>[number];

const IDS = {
  issuer: 'ema-issuer',
  jwksUri: 'ema-jwks-uri',
  allowedClients: 'ema-allowed-clients',
  subjectClaim: 'ema-subject-claim',
  groupsClaim: 'ema-groups-claim',
  groupScopes: 'ema-group-scopes',
};

interface IdpForm {
  issuer: string;
  jwksUri: string;
  allowedClients: string;
  subjectClaim: string;
  groupsClaim: string;
  /** One `group: scope scope` per line. */
  groupScopes: string;
}

const EMPTY: IdpForm = { issuer: '', jwksUri: '', allowedClients: '', subjectClaim: 'sub', groupsClaim: 'groups', groupScopes: '' };
const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** `group: scope scope` lines → the mapping; a line without a colon is reported by its number. */
function parseGroupScopes(text: string): { map: Record<string, string[]>; bad?: number } {
  const map: Record<string, string[]> = {};
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon <= 0 || words(line.slice(colon + 1)).length === 0) return { map, bad: i + 1 };
    map[line.slice(0, colon).trim()] = words(line.slice(colon + 1));
  }
  return { map };
}

/**
 * Enterprise-managed authorization (`PATCH /v1/tenant/auth` `enterpriseIdps`): the identity
 * providers whose ID-JAGs the workspace's authorization server accepts, so MCP clients get tokens
 * from the employee's single sign-on without a consent screen. Each trusted IdP lists the client
 * ids allowed to present its assertions and, optionally, which groups get which scopes.
 */
export function EnterpriseIdps({ view, onChange }: { view: TenantAuthView; onChange: (v: TenantAuthView) => void }) {
  const canEdit = useCan('admin');
  const trusted = view.enterpriseIdps ?? [];
  const at = trusted.length;
  // API field → DOM id: the added IdP is the last entry of the list sent.
  const fieldIds = Object.fromEntries(Object.entries(IDS).map(([k, id]) => [`enterpriseIdps.${at}.${k}`, id]));
  const submitting = useFormSubmit(fieldIds);
  const [form, setForm] = useState<IdpForm>(EMPTY);
  const [notice, setNotice] = useState('');
  const set = (k: keyof IdpForm) => (v: string) => {
    setNotice('');
    setForm((f) => ({ ...f, [k]: v }));
  };
  const send = async (list: TrustedIdp[], done: string) => {
    const next = await api<TenantAuthView>('PATCH', '/v1/tenant/auth', { enterpriseIdps: list });
    onChange(next);
    setNotice(done);
  };
  const add = async (e: Event) => {
    e.preventDefault();
    setNotice('');
    const problems: Record<string, string> = {};
    if (!form.issuer.trim()) problems[IDS.issuer] = "Enter the IdP's issuer URL (the iss of its ID-JAGs).";
    if (!form.jwksUri.trim()) problems[IDS.jwksUri] = "Enter the URL of the IdP's signing keys (JWKS).";
    if (words(form.allowedClients).length === 0)
      problems[IDS.allowedClients] = 'List at least one client id allowed to present this IdP’s assertions.';
    const groups = parseGroupScopes(form.groupScopes);
    if (groups.bad) problems[IDS.groupScopes] = `Line ${groups.bad}: write "group: scope scope".`;
    const entry: TrustedIdp = {
      issuer: form.issuer.trim(),
      jwksUri: form.jwksUri.trim(),
      allowedClients: words(form.allowedClients),
      subjectClaim: form.subjectClaim.trim() || 'sub',
      groupsClaim: form.groupsClaim.trim() || 'groups',
      groupScopes: groups.map,
    };
    await submitting.run(problems, async () => {
      await send([...trusted, entry], `Now trusting ${entry.issuer}.`);
      setForm(EMPTY);
    });
  };
  const remove = (issuer: string) =>
    submitting.run({}, () =>
      send(
        trusted.filter((t) => t.issuer !== issuer),
        `No longer trusting ${issuer}.`,
      ),
    );
  return (
    <section class="card" aria-labelledby="ema-h">
      <h2 id="ema-h">Enterprise-managed authorization</h2>
      <p class="muted">
        Trust your company identity provider to issue ID-JAGs for this workspace: MCP clients signed in with it get tokens here without a
        consent screen, and your IdP decides who may use which scopes.
      </p>
      {trusted.length === 0 ? (
        <Empty>No trusted identity providers.</Empty>
      ) : (
        <DataTable testId="ema-table" columns={['Issuer', 'Allowed clients', 'Subject claim', 'Groups → scopes', '']}>
          {trusted.map((t) => (
            <tr key={t.issuer}>
              <td class="mono">{t.issuer}</td>
              <td class="mono">{t.allowedClients.join(' ')}</td>
              <td class="mono">{t.subjectClaim}</td>
              <td class="mono">
                {Object.keys(t.groupScopes).length === 0
                  ? 'every user: all scopes'
                  : Object.entries(t.groupScopes)
                      .map(([g, s]) => `${g} → ${s.join(' ')}`)
                      .join('; ')}
              </td>
              <td>
                {canEdit && (
                  <button
                    type="button"
                    onClick={() => void remove(t.issuer)}
                    disabled={submitting.busy}
                    aria-label={`Stop trusting ${t.issuer}`}
                  >
                    Remove
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Allowed needed="admin" what="changing trusted identity providers">
        {null}
      </Allowed>
      {canEdit && (
        <form ref={submitting.ref} onSubmit={(e) => void add(e)} noValidate aria-label="Trust an identity provider">
          <div class="grid2">
            <Field
              id={IDS.issuer}
              label="Assertion issuer (iss)"
              type="url"
              value={form.issuer}
              onInput={set('issuer')}
              error={submitting.fields[IDS.issuer]}
            />
            <Field
              id={IDS.jwksUri}
              label="Signing keys (JWKS) address"
              type="url"
              value={form.jwksUri}
              onInput={set('jwksUri')}
              error={submitting.fields[IDS.jwksUri]}
              hint="Fetched before saving: it must serve the IdP's public signing keys."
            />
            <Field
              id={IDS.allowedClients}
              label="Clients allowed to present assertions"
              value={form.allowedClients}
              onInput={set('allowedClients')}
              error={submitting.fields[IDS.allowedClients]}
              hint="Client ids at this workspace (registered or metadata-document URLs), separated by spaces."
            />
            <Field
              id={IDS.subjectClaim}
              label="Subject claim"
              value={form.subjectClaim}
              onInput={set('subjectClaim')}
              error={submitting.fields[IDS.subjectClaim]}
              hint="The claim that names the user, e.g. sub or email."
            />
            <Field
              id={IDS.groupsClaim}
              label="Groups claim"
              value={form.groupsClaim}
              onInput={set('groupsClaim')}
              error={submitting.fields[IDS.groupsClaim]}
            />
            <Field
              id={IDS.groupScopes}
              label="Groups and their scopes (optional)"
              multiline
              rows={3}
              mono
              value={form.groupScopes}
              onInput={set('groupScopes')}
              error={submitting.fields[IDS.groupScopes]}
              hint='One per line, "group: scope scope". Empty: every user of the IdP may get the workspace scopes.'
            />
          </div>
          <FormFooter
            error={submitting.formError}
            errorTitle="Could not save the trusted identity providers"
            notice={notice}
            noticeTestId="ema-notice"
          >
            <SubmitButton busy={submitting.busy} label="Trust identity provider" />
          </FormFooter>
        </form>
      )}
      {trusted.length > 0 && <IdJagCheck />}
    </section>
  );
}
