import type { UnsupportedPattern } from './api';

/**
 * Regexes of a tool's inputSchema that the gateway's linear-time engine cannot run: the registry
 * refuses to publish or approve the tool (400 PATTERN_UNSUPPORTED), and no override can fix it —
 * the upstream server has to change the pattern.
 */
export function PatternNotice({ patterns, testId }: { patterns: readonly UnsupportedPattern[]; testId: string }) {
  return (
    <div class="notice" role="status" data-testid={testId}>
      <p>
        This tool cannot be published: its input schema uses regular expressions that Switchboard's linear-time engine cannot run. Change
        them on your MCP server, then discover again.
      </p>
      <ul>
        {patterns.map((p) => (
          <li key={p.pointer}>
            <span class="mono">{p.pointer}</span> <span class="mono wrap">{p.pattern}</span>: {p.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
