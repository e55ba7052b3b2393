import { useState } from 'preact/hooks';
import { api } from './api';
import type { EnterpriseCheckResult } from './api-types';
import { FormFooter, SubmitButton } from './form-footer';
import { Field, useFormSubmit } from './ui';

const ID = 'ema-check-assertion';

/**
 * The test of enterprise-managed authorization (`POST /v1/tenant/auth/enterprise-check`): paste
 * an ID-JAG your IdP issued for this workspace; the live authorization server says whom it would
 * issue a token for and with which scopes, or which check refuses it. Nothing is spent.
 */
export function IdJagCheck() {
  const [assertion, setAssertion] = useState('');
  const [result, setResult] = useState<EnterpriseCheckResult | undefined>(undefined);
  const submitting = useFormSubmit({ assertion: ID });
  const check = async (e: Event) => {
    e.preventDefault();
    setResult(undefined);
    const problems: Record<string, string> = assertion.trim()
      ? {}
      : { [ID]: 'Paste an ID-JAG (a JWT) your IdP issued for this workspace.' };
    await submitting.run(problems, async () =>
      setResult(await api<EnterpriseCheckResult>('POST', '/v1/tenant/auth/enterprise-check', { assertion: assertion.trim() })),
    );
  };
  return (
    <form ref={submitting.ref} onSubmit={(e) => void check(e)} noValidate aria-label="Test an ID-JAG">
      <h3>Test an ID-JAG</h3>
      <Field
        id={ID}
        label="ID-JAG to test"
        multiline
        rows={3}
        mono
        value={assertion}
        onInput={setAssertion}
        error={submitting.fields[ID]}
        hint="Checked as if the client it names presented it; it stays unused."
      />
      {result && (
        <p data-testid="ema-check-result" role="status">
          {result.ok
            ? `Accepted: a token for ${result.subject} with ${result.scopes.join(' ')} (client ${result.clientId}).`
            : `Refused (${result.check}): ${result.description}`}
        </p>
      )}
      <FormFooter error={submitting.formError} errorTitle="Could not test the assertion" notice="" noticeTestId="ema-check-notice">
        <SubmitButton busy={submitting.busy} label="Test assertion" />
      </FormFooter>
    </form>
  );
}
