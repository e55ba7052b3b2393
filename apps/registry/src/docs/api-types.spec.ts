import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');
// As scripts/gen-api.mjs names it.
const API_TYPES_FILE = 'libs/admin-api/src/index.ts';

/** `scripts/gen-api.mjs` in its own process (prettier, which formats the output, cannot load inside jest's VM). */
function genApi(...args: string[]) {
  return spawnSync(process.execPath, [path.join(ROOT, 'scripts/gen-api.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
}

describe('the generated admin API types (libs/admin-api)', () => {
  it('are what the OpenAPI document generates now (run `npm run gen:api` after changing a route schema)', () => {
    const run = genApi('--check');
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('--check fails on a file that drifted from the document, naming the command that fixes it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'api-types-'));
    try {
      const stale = path.join(dir, 'api-types.ts');
      await copyFile(path.join(ROOT, API_TYPES_FILE), stale);
      await writeFile(
        stale,
        (await readFile(stale, 'utf8')).replace('export interface Server {', 'export interface Server {\n  removedField: string;'),
      );
      const run = genApi('--check', `--file=${stale}`);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('run npm run gen:api');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
