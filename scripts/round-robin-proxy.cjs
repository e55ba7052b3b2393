'use strict';
// Shared by scripts/conformance.mjs (the two-gateway topology) and apps/gateway/e2e/server-to-client.spec.ts:
// CommonJS so both an ES module script and a jest-transformed TypeScript test can load it as is.
const { connect, createServer } = require('node:net');

/**
 * A loopback TCP proxy alternating between `ports` per accepted connection (so consecutive
 * connections of one client land on different gateways). Resolves once listening.
 * @param {number[]} ports
 * @returns {Promise<{ port: number; close(): Promise<void> }>}
 */
function roundRobinProxy(ports) {
  let next = 0;
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = connect(ports[next++ % ports.length], '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolveProxy, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolveProxy({
        port: server.address().port,
        close: () =>
          new Promise((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

exports.roundRobinProxy = roundRobinProxy;
