import type { Server } from 'node:http';

/** What `listenAndAnnounce` needs of an app (a Nest Fastify application has it). */
export interface ListeningApp {
  listen(options: { port: number; host: string }): Promise<unknown>;
  getHttpServer(): Server;
}

/**
 * Listens, then prints `<service> listening on http://host:port` — the one line start scripts
 * and benches wait for — with the port actually bound (port 0 picks a free one).
 */
export async function listenAndAnnounce(app: ListeningApp, service: string, host: string, port: number): Promise<void> {
  await app.listen({ port, host });
  const address = app.getHttpServer().address();
  const bound = typeof address === 'object' && address ? address.port : port;
  process.stdout.write(`${service} listening on http://${host}:${bound}\n`);
}

/**
 * Runs a service's `main` and exits 1 if it fails to start: a configuration problem (an error
 * named `ConfigError`, which lists every bad variable) is printed as it is, anything else after
 * `<service> failed to start:`.
 */
export function runServiceMain(service: string, main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    const configProblem = err instanceof Error && err.name === 'ConfigError';
    process.stderr.write(
      configProblem ? `${err.message}\n` : `${service} failed to start: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    process.exit(1);
  });
}
