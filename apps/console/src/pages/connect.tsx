import { api, type Tenant } from '../api';
import { ReachabilityBanner, unreachableReason } from '../reachability';
import { CopyButton, LoadStatus, useLoad } from '../ui';

/** The tenant's MCP URL, the `claude mcp add` line, and the ChatGPT connector steps. */
export function ConnectPage({ tenant }: { tenant: Tenant }) {
  const info = useLoad(() => api<{ mcpUrl: string; claudeCommand: string }>('GET', '/v1/connect'));
  const mcpUrl = info.data?.mcpUrl ?? tenant.mcpUrl;
  const claude = info.data?.claudeCommand ?? tenant.claudeCommand;
  const blocked = unreachableReason(mcpUrl) !== undefined;
  return (
    <section aria-labelledby="connect-h">
      <h1 id="connect-h">Connect</h1>
      <p class="lead">Point Claude, ChatGPT or any MCP client at your tenant's URL. Before you share it, run the Readiness check.</p>
      <ReachabilityBanner url={mcpUrl} />
      <LoadStatus
        load={info}
        errorTitle="Could not load the connection details (showing the ones from sign-in)"
        loadingLabel="Loading connection details…"
      />
      <div class="card">
        <h2>MCP URL</h2>
        <p>
          <code id="mcp-url" class="copyable" data-testid="mcp-url">
            {mcpUrl}
          </code>
        </p>
        <CopyButton text={mcpUrl} label="Copy URL" targetId="mcp-url" />
      </div>
      <div class="card">
        <h2>Claude Code</h2>
        <p>Run this in a terminal:</p>
        <pre id="claude-command" class="copyable" data-testid="claude-command">
          {claude}
        </pre>
        <CopyButton text={claude} label="Copy command" targetId="claude-command" />
        <h3>claude.ai and Claude Desktop</h3>
        {blocked && (
          <p class="field-warning">These steps need a URL reachable from the internet (see above); they will fail with this one.</p>
        )}
        <ol>
          <li>
            Open <strong>Settings → Connectors</strong> and choose <strong>Add custom connector</strong>.
          </li>
          <li>Paste the MCP URL above and give the connector a name.</li>
          <li>If your tenant requires sign-in, Claude opens your login page; approve access.</li>
        </ol>
      </div>
      <div class="card">
        <h2>ChatGPT</h2>
        {blocked && <p class="field-warning">ChatGPT connects from OpenAI's servers: it cannot reach this URL (see above).</p>}
        <ol data-testid="chatgpt-steps">
          <li>
            In ChatGPT open <strong>Settings → Apps &amp; Connectors → Advanced settings</strong> and turn on{' '}
            <strong>Developer mode</strong>.
          </li>
          <li>
            Back in <strong>Apps &amp; Connectors</strong>, choose <strong>Create</strong>.
          </li>
          <li>
            Name the connector, paste the MCP URL above into <strong>MCP Server URL</strong>, and pick the authentication your tenant uses (
            <em>No authentication</em>, or <em>OAuth</em>).
          </li>
          <li>Confirm you trust the server and create it; ChatGPT lists the tools it found.</li>
          <li>
            In a chat, open the <strong>+</strong> menu, choose <strong>Developer mode</strong> and enable the connector.
          </li>
        </ol>
      </div>
    </section>
  );
}
