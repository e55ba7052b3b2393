// A separate process standing in for the registry's discovery path in the telemetry e2e test
// (the registry has no BullMQ worker yet): telemetry first, then one discovery job through
// BullMQ on real Redis: enqueued inside a PRODUCER span, processed inside a CONSUMER span
// that lists the upstream's tools with the official SDK client. Prints `done <json>`.
'use strict';
const { observeQueueDepth, startTelemetry, withConsumerSpan, withProducerSpan } = require('@switchboard/telemetry');

const telemetry = startTelemetry({ serviceName: 'registry', serviceVersion: '0.1.0' });

const { Queue, Worker } = require('bullmq');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

async function main() {
  const url = process.env.DISCOVER_URL;
  const name = process.env.QUEUE_NAME;
  const connection = { host: '127.0.0.1', port: 6379, maxRetriesPerRequest: null };
  const prefix = 'sb-telemetry-e2e';
  const queue = new Queue(name, { connection, prefix });
  const stopDepth = observeQueueDepth(queue);
  let tools = [];
  const done = new Promise((resolve, reject) => {
    const worker = new Worker(
      name,
      (job) =>
        withConsumerSpan('discovery', job, async () => {
          const client = new Client({ name: 'switchboard-registry', version: '0.1.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(job.data.url)));
          tools = (await client.listTools()).tools.map((t) => t.name);
          await client.close();
        }),
      { connection, prefix },
    );
    worker.on('completed', () => void worker.close().then(resolve, reject));
    worker.on('failed', (_job, err) => void worker.close().then(() => reject(err), reject));
  });
  await withProducerSpan('discovery', 'discover', { tenantId: 'acme', serverId: 'chain', url }, (data) => queue.add('discover', data));
  await done;
  const metrics = await telemetry.metricsText();
  stopDepth();
  await queue.obliterate({ force: true });
  await queue.close();
  await telemetry.shutdown();
  process.stdout.write(`done ${JSON.stringify({ tools, metrics })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
});
