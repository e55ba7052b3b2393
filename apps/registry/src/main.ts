// Telemetry first: http, pg and ioredis must be instrumented before they load.
import './instrument';
import { ConfigError } from './config';
import { startRegistry } from './start-registry';

export { startRegistry } from './start-registry';
export { createRegistry } from './create-registry';

if (require.main === module) {
  startRegistry()
    .then((registry) => {
      const shutdown = () => void registry.stop().finally(() => process.exit(0));
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    })
    .catch((err: unknown) => {
      process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `registry failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
