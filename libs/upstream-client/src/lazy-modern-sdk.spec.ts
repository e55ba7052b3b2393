import { spawnSync } from 'node:child_process';
import path from 'node:path';

/**
 * The SDK v2 client is loaded by the first 2026-07-28 connection, not by importing the
 * library (checked in a child process on the built library, as the gateway loads it; the
 * modern connection itself is covered by the upstream pool's MRTR and signal specs).
 */
it('importing the upstream client does not load the SDK v2 client', () => {
  const built = path.resolve(__dirname, '../dist/index.js');
  const script = `
    require(${JSON.stringify(built)});
    const files = Object.keys(require.cache);
    process.stdout.write(JSON.stringify({
      v1: files.some((f) => f.includes('/node_modules/@modelcontextprotocol/sdk/')),
      v2: files.some((f) => f.includes('/node_modules/@modelcontextprotocol/client/')),
    }));
  `;
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 });
  if (out.status !== 0) throw new Error(`child failed (${out.status}): ${out.stderr}`);
  expect(JSON.parse(out.stdout)).toEqual({ v1: true, v2: false });
});
