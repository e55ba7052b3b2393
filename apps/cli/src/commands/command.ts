import type { ApiClient } from '../api/api-client';

/** One option of a command, as node:util parseArgs takes it plus what `--help` prints. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  description: string;
  /** The placeholder `--help` shows (`<url>`). */
  value?: string;
}

export type Flags = Record<string, string | boolean | string[] | undefined>;

/** Where a command writes: stdout for results, stderr for progress and errors. */
export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** What a running command receives: its positionals and flags, the output mode, and the API client. */
export interface CommandContext {
  args: string[];
  flags: Flags;
  json: boolean;
  io: Io;
  /** The admin API client (resolving the URL and credential on first use: `--help` needs neither). */
  client: () => ApiClient;
  /** Prints a result: the value as JSON with `--output json`, else `text(value)`. */
  print: <T>(value: T, text: (value: T) => string) => void;
}

export interface Command {
  /** Words that select it: `servers add`. */
  name: string;
  summary: string;
  /** Positional part of the usage line: `<id>`. */
  args?: string;
  /** Lines shown under the usage by `--help`. */
  details?: string[];
  /** How many positionals it takes. */
  positionals?: { min: number; max: number };
  options?: Record<string, OptionSpec>;
  /** Answers the exit code (0 when it returns nothing). */
  run: (ctx: CommandContext) => Promise<number | void>;
}

/** A string flag (the last one when repeated). */
export function str(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  if (Array.isArray(v)) return v.at(-1);
  return typeof v === 'string' ? v : undefined;
}
