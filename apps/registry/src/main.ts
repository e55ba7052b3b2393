// Telemetry first: http, pg and ioredis must be instrumented before they load.
import './instrument';
import { ConfigError } from './config';
import { startRegistry } from './start-registry';

export { startRegistry } from './start-registry';
export { createRegistry } from './create-registry';

if (require.main === module) {
  startRegistry()
    .then((registry) => {
      registry.shutdown.exitOnSignals(registry.stop);
      // The one line start scripts wait for, printed once SIGTERM drains (a stop right after it must not kill the process mid-way).
      process.stdout.write(`registry listening on ${registry.url}\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(
        err instanceof ConfigError
          ? `${err.message}\n`
          : `registry failed to start: ${err instanceof Error ? err.message : err === undefined ? 'unknown error (no detail was given)' : String(err)}\n`,
      );
      process.exit(1);
    });
}
