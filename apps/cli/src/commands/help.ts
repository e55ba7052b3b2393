import type { Command, OptionSpec } from './command';

/** Options every command takes. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  output: { type: 'string', short: 'o', value: '<format>', description: 'text (default) or json' },
  registry: { type: 'string', value: '<url>', description: "the registry's URL (default: $SWITCHBOARD_URL)" },
  'request-timeout-ms': { type: 'string', value: '<ms>', description: 'per-request timeout (default 30000)' },
  help: { type: 'boolean', short: 'h', description: 'show help for the command' },
};

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, o]) => [
    `${o.short ? `-${o.short}, ` : '    '}--${name}${o.value ? ` ${o.value}` : ''}`,
    o.description,
  ]);
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

export function commandHelp(cmd: Command): string {
  const lines = [`Usage: switchboard ${cmd.name}${cmd.args ? ` ${cmd.args}` : ''} [options]`, '', cmd.summary];
  if (cmd.details) lines.push('', ...cmd.details);
  if (cmd.options && Object.keys(cmd.options).length > 0) lines.push('', 'Options:', ...optionLines(cmd.options));
  lines.push('', 'Global options:', ...optionLines(GLOBAL_OPTIONS));
  return lines.join('\n');
}

/** The command list (of everything, or of a group such as `servers`). */
export function overviewHelp(commands: Command[], group?: string): string {
  const shown = group ? commands.filter((c) => c.name.startsWith(`${group} `)) : commands;
  const width = Math.max(...shown.map((c) => c.name.length));
  return [
    `Usage: switchboard ${group ?? '<command>'}${group ? ' <command>' : ''} [options]`,
    '',
    'Commands:',
    ...shown.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Sign-in: SWITCHBOARD_URL (the registry) and SWITCHBOARD_API_KEY (a tenant API key, sbk_…) or SWITCHBOARD_TOKEN.',
    `Run "switchboard ${group ? `${group} ` : ''}<command> --help" for a command's options. Exit codes: see apps/cli/README.md.`,
  ].join('\n');
}
