import { readFile } from 'node:fs/promises';
import { parse, YAMLParseError } from 'yaml';
import { CliError, EXIT } from '../exit-codes';
import { tenantFileSchema, type TenantFile } from './tenant-file-schema';

/** A tenant file is a handful of servers and settings; anything bigger is a mistake (or hostile). */
export const MAX_TENANT_FILE_BYTES = 1024 * 1024;

/** A usage error (exit 2) listing every problem of the file, each naming its field (`servers.0.url`). */
function invalid(file: string, issues: Array<{ field: string; message: string }>): CliError {
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return new CliError(`${file}: ${first.field}: ${first.message}${more}`, EXIT.usage, { code: 'INVALID_FILE', field: first.field, issues });
}

/** Parses and validates tenant-file text; `name` is what errors call the file. */
export function parseTenantFile(text: string, name: string): TenantFile {
  let doc: unknown;
  try {
    // Aliases are expanded with a bound, so a "billion laughs" file is refused rather than expanded.
    doc = parse(text, { maxAliasCount: 100, prettyErrors: true, uniqueKeys: true });
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const at = err.linePos?.[0];
      throw invalid(name, [{ field: at ? `line ${at.line}` : '(file)', message: err.message.split('\n')[0] }]);
    }
    // The yaml package signals an alias bound (maxAliasCount) with a ReferenceError.
    if (err instanceof ReferenceError)
      throw invalid(name, [{ field: '(file)', message: `${err.message}: aliases may expand to at most 100 nodes` }]);
    throw err;
  }
  const parsed = tenantFileSchema.safeParse(doc);
  if (!parsed.success) {
    throw invalid(
      name,
      parsed.error.issues.map((i) => ({ field: i.path.length > 0 ? i.path.join('.') : '(file)', message: i.message })),
    );
  }
  return parsed.data;
}

/** Reads a tenant file (`-` = stdin is not supported: CI has files). */
export async function loadTenantFile(path: string): Promise<TenantFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new CliError(
      `--file: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      EXIT.usage,
      { code: 'USAGE', field: 'file' },
      { cause: err },
    );
  }
  if (Buffer.byteLength(text) > MAX_TENANT_FILE_BYTES)
    throw invalid(path, [{ field: '(file)', message: `over ${MAX_TENANT_FILE_BYTES} bytes` }]);
  return parseTenantFile(text, path);
}
