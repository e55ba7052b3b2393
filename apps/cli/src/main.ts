import { parseArgs } from 'node:util';
import { ApiClient } from './api/api-client';
import { type Command, type CommandContext, type Io, type Flags, str } from './commands/command';
import { commandHelp, GLOBAL_OPTIONS, overviewHelp } from './commands/help';
import { LOGIN_COMMANDS } from './commands/login';
import { OBSERVE_COMMANDS } from './commands/observe';
import { PUBLISHING_COMMANDS } from './commands/publishing';
import { SERVER_COMMANDS } from './commands/servers';
import { TENANT_FILE_COMMANDS } from './commands/tenant-file-commands';
import { resolveTarget } from './credentials';
import { CliError, EXIT, usageError } from './exit-codes';

/** Every command, in the order `--help` lists them. */
export const COMMANDS: Command[] = [
  ...SERVER_COMMANDS,
  ...PUBLISHING_COMMANDS,
  ...OBSERVE_COMMANDS,
  ...TENANT_FILE_COMMANDS,
  ...LOGIN_COMMANDS,
];

const processIo = (): Io => ({
  stdout: (t) => void process.stdout.write(`${t}\n`),
  stderr: (t) => void process.stderr.write(`${t}\n`),
  env: process.env,
  cwd: process.cwd(),
});

/** The command the leading words name (longest match), and the words after it. */
function findCommand(argv: string[]): { command?: Command; rest: string[]; words: string[] } {
  const words: string[] = [];
  for (const a of argv) {
    if (a.startsWith('-')) break;
    words.push(a);
  }
  for (let n = Math.min(words.length, 2); n > 0; n--) {
    const name = words.slice(0, n).join(' ');
    const command = COMMANDS.find((c) => c.name === name);
    if (command) return { command, rest: argv.slice(n), words };
  }
  return { rest: argv, words };
}

function parse(command: Command, rest: string[]): { args: string[]; flags: Flags } {
  try {
    const { values, positionals } = parseArgs({
      args: rest,
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    return { args: positionals, flags: values as Flags };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code?.startsWith('ERR_PARSE_ARGS')) throw usageError(`${e.message} (see switchboard ${command.name} --help)`);
    throw err;
  }
}

function context(command: Command, args: string[], flags: Flags, io: Io): CommandContext {
  const output = str(flags, 'output') ?? 'text';
  if (output !== 'text' && output !== 'json') throw usageError(`--output: "${output}" is not text or json`, 'output');
  const json = output === 'json';
  const timeout = str(flags, 'request-timeout-ms');
  const timeoutMs = timeout === undefined ? undefined : Number(timeout);
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs <= 0))
    throw usageError('--request-timeout-ms: must be a positive integer', 'request-timeout-ms');
  let client: ApiClient | undefined;
  return {
    args,
    flags,
    json,
    io,
    client: () => (client ??= new ApiClient(resolveTarget(io.env, { url: str(flags, 'registry'), timeoutMs }))),
    print: (value, text) => io.stdout(json ? JSON.stringify(value, null, 2) : text(value)),
  };
}

async function run(argv: string[], io: Io): Promise<number> {
  const { command, rest, words } = findCommand(argv);
  const wantsHelp = argv.includes('--help') || argv.includes('-h');
  if (!command) {
    const topic = words[0] === 'help' ? words.slice(1) : words;
    const asked = findCommand(topic).command;
    if (asked) return (io.stdout(commandHelp(asked)), EXIT.ok);
    const group = topic[0] && COMMANDS.some((c) => c.name.startsWith(`${topic[0]} `)) ? topic[0] : undefined;
    if (topic.length > (group ? 1 : 0)) throw usageError(`unknown command "${words.join(' ')}" (see switchboard --help)`, 'command');
    io.stdout(overviewHelp(COMMANDS, group));
    return words.length === 0 && !wantsHelp ? EXIT.usage : EXIT.ok;
  }
  const { args, flags } = parse(command, rest);
  if (flags.help) return (io.stdout(commandHelp(command)), EXIT.ok);
  const { min, max } = command.positionals ?? { min: 0, max: 0 };
  if (args.length < min || args.length > max) {
    throw usageError(
      `${command.name}: expected ${command.args ?? 'no arguments'}, got ${args.length === 0 ? 'none' : `"${args.join(' ')}"`} (see switchboard ${command.name} --help)`,
      'arguments',
    );
  }
  return (await command.run(context(command, args, flags, io))) ?? EXIT.ok;
}

function report(err: CliError, json: boolean, io: Io): void {
  if (json) return io.stderr(JSON.stringify({ error: { message: err.message, ...err.details } }));
  const extra = [err.details.code && `code ${err.details.code}`, err.details.field && `field ${err.details.field}`]
    .filter(Boolean)
    .join(', ');
  io.stderr(`error: ${err.message}${extra ? ` (${extra})` : ''}`);
  for (const issue of (err.details.issues ?? []).slice(1, 20)) io.stderr(`  ${issue.field}: ${issue.message}`);
}

/** Runs the CLI on `argv` (without node and script) and answers the exit code (see EXIT). */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const json = argv.some((a, i) => a === '--output=json' || a === '-ojson' || ((a === '--output' || a === '-o') && argv[i + 1] === 'json'));
  try {
    return await run(argv, io);
  } catch (err) {
    if (err instanceof CliError) {
      report(err, json, io);
      return err.exitCode;
    }
    io.stderr(`error: ${(err as Error).stack ?? String(err)}`);
    return EXIT.failure;
  }
}
