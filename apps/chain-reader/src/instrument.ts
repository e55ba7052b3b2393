import { startTelemetry } from '@switchboard/telemetry';

/**
 * Imported first by `main.ts`: OpenTelemetry patches `http` and `ioredis` before they load.
 * `/mcp` gets the MCP SERVER span (continuing the gateway's trace) instead of a bare HTTP one.
 */
startTelemetry({ serviceName: 'chain-reader', serviceVersion: '0.1.0', ignoreIncomingPaths: /^\/mcp(\?|$)/ });
