import type { PoisonFinding } from './api';

/**
 * Poisoned-tool warnings discovery found in a definition (instructions aimed at the model,
 * invisible characters, a look-alike of another server's tool): the registry publishes or
 * approves it only with `acknowledgeFindings: true`, which the checkbox sets.
 */
export function FindingsNotice({
  findings,
  testId,
  acknowledged,
  onAcknowledge,
}: {
  findings: readonly PoisonFinding[];
  testId: string;
  acknowledged: boolean;
  onAcknowledge: (v: boolean) => void;
}) {
  return (
    <div class="notice" role="status" data-testid={testId}>
      <p>
        Switchboard found text in this definition that may be aimed at the model rather than at people. Read each warning before publishing.
      </p>
      <ul>
        {findings.map((f) => (
          <li key={f.id} data-rule={f.rule}>
            <strong>{f.severity === 'high' ? 'High' : 'Medium'}</strong> <span class="mono">{f.rule}</span> at{' '}
            <span class="mono">{f.pointer || '/'}</span>: {f.message}
            {f.excerpt && (
              <>
                {' '}
                — <span class="mono wrap">{f.excerpt}</span>
              </>
            )}
          </li>
        ))}
      </ul>
      <label>
        <input
          type="checkbox"
          checked={acknowledged}
          onChange={(e) => onAcknowledge((e.currentTarget as HTMLInputElement).checked)}
          data-testid={`${testId}-ack`}
        />{' '}
        I have reviewed these warnings
      </label>
    </div>
  );
}
