#!/usr/bin/env node
// `npm start`: the whole platform on one machine, on embedded defaults. Each service is its
// own process; this script starts them in dependency order, waits for each to be ready,
// prints the URLs to paste into a client, and stops everything on Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const children = [];
let stopping = false;

function start(name, script, env, readyPattern, timeoutMs = 120_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const timer = setTimeout(() => reject(new Error(`${name} did not become ready within ${timeoutMs / 1000} s`)), timeoutMs);
    let buffered = '';
    const onData = (chunk) => {
      const text = chunk.toString();
      for (const line of text.split('\n')) if (line.trim()) process.stdout.write(`[${name}] ${line}\n`);
      buffered += text;
      const m = buffered.match(readyPattern);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => {
      const text = chunk.toString();
      for (const line of text.split('\n')) if (line.trim()) process.stderr.write(`[${name}] ${line}\n`);
      buffered += text;
      const m = buffered.match(readyPattern);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!stopping) {
        reject(new Error(`${name} exited with code ${code}`));
        shutdown(code ?? 1);
      }
    });
  });
}

function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 1500).unref();
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

async function main() {
  // Build first (incremental: a no-op when nothing changed). Running it here rather than as
  // `npm run build && …` keeps this process the direct child of npm, so Ctrl-C / SIGTERM reach it.
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('build failed');
  const env = {};
  const chainMain = path.join(root, 'apps/chain-reader/dist/main.js');
  if (existsSync(chainMain)) {
    const m = await start('chain-reader', chainMain, { CHAIN_READER_PORT: process.env.CHAIN_READER_PORT ?? '4200' }, /MCP endpoint (http:\/\/\S+\/mcp)/);
    env.CHAIN_READER_URL = m[1];
  }
  const port = process.env.GATEWAY_PORT ?? '3000';
  const m = await start('gateway', path.join(root, 'apps/gateway/dist/main.js'), { GATEWAY_PORT: port, ...env }, /gateway listening on (http:\/\/\S+)/);
  const base = m[1];
  const demo = `${base}/t/demo/mcp`;
  process.stdout.write(
    [
      '',
      'Switchboard is running.',
      `  Demo tenant MCP endpoint:  ${demo}`,
      `  Connect Claude Code:       claude mcp add --transport http switchboard-demo ${demo}`,
      `  List its tools:            npx @modelcontextprotocol/inspector --cli ${demo} --method tools/list`,
      `  Server card / llms.txt:    ${base}/t/demo/.well-known/mcp.json   ${base}/t/demo/llms.txt`,
      `  Conformance tenant:        ${base}/t/conformance/mcp`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`npm start failed: ${err.message}\n`);
  shutdown(1);
});
