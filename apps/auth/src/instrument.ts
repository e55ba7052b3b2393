import { startTelemetry } from '@switchboard/telemetry';

/** Imported first by `main.ts`: OpenTelemetry patches `http` and `pg` before they load. */
startTelemetry({ serviceName: 'auth', serviceVersion: '0.1.0' });
