import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startTelemetry } from '@switchboard/telemetry';

/**
 * Imported first by `main.ts`: OpenTelemetry must patch `http` before Fastify loads it. MCP
 * paths are left to the MCP SERVER span (which applies the client-traceparent policy).
 */
function version(): string {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

startTelemetry({ serviceName: 'gateway', serviceVersion: version(), ignoreIncomingPaths: /\/mcp(\?|$)/ });
