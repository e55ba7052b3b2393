// X's client for bench/isolation's notification flood: CONCURRENCY loops of legacy tools/call
// to `flood_flood`, asking for progress, reading each SSE answer whole. A separate process (the
// driver starts it at nice 19) so reading X's notifications does not take CPU from wrk. Runs
// until SIGTERM, then prints {"calls","progress","warnings","failed"} and exits.
const [url, concurrency = '16'] = process.argv.slice(2);
const got = { calls: 0, progress: 0, warnings: 0, failed: 0 };
let stopped = false;
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 9,
  method: 'tools/call',
  params: { name: 'flood_flood', arguments: {}, _meta: { progressToken: 'p' } },
});
const loops = Array.from({ length: Number(concurrency) }, async () => {
  while (!stopped) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
        },
        body,
      });
      const text = await res.text();
      got.calls += 1;
      got.progress += text.split('"method":"notifications/progress"').length - 1;
      got.warnings += text.includes('NOTIFY_MAX_BYTES_PER_CALL') ? 1 : 0;
      if (!text.includes('flooded')) got.failed += 1;
    } catch {
      if (!stopped) got.failed += 1;
    }
  }
});
process.on('SIGTERM', async () => {
  stopped = true;
  await Promise.race([Promise.allSettled(loops), new Promise((r) => setTimeout(r, 5_000))]);
  process.stdout.write(`${JSON.stringify(got)}\n`);
  process.exit(0);
});
process.stdout.write('ready\n');
