import type { Io } from './commands/command';
import { EXIT } from './exit-codes';
import { COMMANDS, main } from './main';

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env, cwd: '/' };
  const code = await main(argv, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('switchboard command line', () => {
  it.each(COMMANDS.map((c) => c.name))('answers "%s --help" with its usage, options and the global options', async (name) => {
    const res = await run([...name.split(' '), '--help']);
    expect(res.code).toBe(EXIT.ok);
    expect(res.stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: switchboard ${name}\\b`));
    expect(res.stdout).toContain('--output <format>');
  });

  it('lists a group\'s commands for "servers --help" and every command for "help"', async () => {
    expect((await run(['servers', '--help'])).stdout).toMatch(/servers add[\s\S]*servers rm/);
    const all = await run(['help']);
    expect(all.code).toBe(EXIT.ok);
    for (const c of COMMANDS) expect(all.stdout).toContain(c.name);
  });

  it('exits 2 naming the option for an unknown option, and without a command', async () => {
    const res = await run(['servers', 'list', '--colour', 'red']);
    expect(res.code).toBe(EXIT.usage);
    expect(res.stderr).toContain("'--colour'");
    expect((await run([])).code).toBe(EXIT.usage);
    expect((await run(['servers', 'fly'])).code).toBe(EXIT.usage);
  });

  it('exits 2 for missing or extra arguments and a bad --output, before calling anything', async () => {
    expect((await run(['servers', 'show'])).stderr).toContain('expected <id>, got none');
    const bad = await run(['servers', 'list', '-o', 'xml'], { SWITCHBOARD_URL: 'http://127.0.0.1:9', SWITCHBOARD_API_KEY: 'sbk_x' });
    expect(bad).toMatchObject({ code: EXIT.usage });
    expect(bad.stderr).toContain('--output: "xml" is not text or json');
  });

  it('exits 3 naming the credential when no API key or token is set', async () => {
    const res = await run(['servers', 'list', '--output', 'json'], {
      SWITCHBOARD_URL: 'http://127.0.0.1:9',
      SWITCHBOARD_CONFIG_DIR: '/nonexistent/switchboard',
    });
    expect(res.code).toBe(EXIT.auth);
    expect(JSON.parse(res.stderr)).toEqual({ error: expect.objectContaining({ code: 'UNAUTHENTICATED', field: 'authorization' }) });
  });

  it('exits 6 when the registry cannot be reached', async () => {
    const res = await run(['servers', 'list'], { SWITCHBOARD_URL: 'http://127.0.0.1:9', SWITCHBOARD_API_KEY: 'sbk_x' });
    expect(res.code).toBe(EXIT.unavailable);
    expect(res.stderr).toContain('could not be reached');
  });

  it('exits 2 naming the field when the tenant file is invalid', async () => {
    const res = await run(['plan', '-f', '/nonexistent/tenant.yaml'], {
      SWITCHBOARD_URL: 'http://127.0.0.1:9',
      SWITCHBOARD_API_KEY: 'sbk_x',
    });
    expect(res).toMatchObject({ code: EXIT.usage });
    expect(res.stderr).toContain('--file: cannot read /nonexistent/tenant.yaml: ENOENT');
  });
});
