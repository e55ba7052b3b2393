import { startTelemetry } from '@switchboard/telemetry';

/** Imported first by `main.ts`: OpenTelemetry patches `http`, `pg` and `ioredis` before they load. */
startTelemetry({ serviceName: 'registry', serviceVersion: '0.1.0' });
