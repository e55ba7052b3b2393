import type { LocalBundle, ToolDefinition } from '@switchboard/catalog';

/** What the gateway uses of libs/fixtures (`@switchboard/fixtures`). */
export interface FixturesPackage {
  builtinBundle(name: string): LocalBundle | undefined;
  fixtureBundle(id: string, definitions: readonly ToolDefinition[]): LocalBundle;
}

/**
 * Held in a variable rather than written as a literal import on purpose: neither tsc, the
 * workspace dependency scan nor a bundler follows it, so the gateway's image (built from
 * apps/gateway's own references) never compiles or ships the fixtures. Development trees build
 * every lib, and there a tenant naming `builtin: demo` or a fixture file finds the package.
 */
const FIXTURES_PACKAGE = '@switchboard/fixtures';

let loading: Promise<FixturesPackage> | undefined;

/** The fixtures package, imported on first use; rejects with a message saying why it is needed and missing. */
export function loadFixtures(): Promise<FixturesPackage> {
  loading ??= importFixtures(FIXTURES_PACKAGE);
  return loading;
}

/** Imports `specifier` as the fixtures package (exported for its test). */
export async function importFixtures(specifier: string): Promise<FixturesPackage> {
  let mod: Partial<FixturesPackage> & { default?: Partial<FixturesPackage> };
  try {
    mod = (await import(specifier)) as typeof mod;
  } catch (err) {
    throw new Error(
      `${specifier} is not installed in this build (production images leave the development fixtures out): ${(err as Error).message}`,
      { cause: err },
    );
  }
  // Node's import() of the compiled CommonJS package puts module.exports under `default` as well.
  const api = typeof mod.builtinBundle === 'function' ? mod : mod.default;
  if (typeof api?.builtinBundle !== 'function' || typeof api.fixtureBundle !== 'function') {
    throw new Error(`${specifier} does not export builtinBundle and fixtureBundle`);
  }
  return api as FixturesPackage;
}
