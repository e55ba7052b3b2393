import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import { addLinearFormats } from './add-linear-formats';
import { canonicalJson } from './canonical-json';
import { CatalogError } from './catalog-error';
import type { JsonSchema } from './definitions';
import { findUnsupportedPatterns } from './find-unsupported-patterns';
import { linearRegExp } from './linear-reg-exp';

/** Validates tool arguments; returns null when valid, else a message naming the field (`text: must be string`). */
export type ArgsValidator = (args: unknown) => string | null;

type Dialect = 'draft-07' | '2019-09' | '2020-12';

// Tenants replace catalogs over the gateway's lifetime; a bound keeps stale validators from piling up.
const MAX_CACHED = 5_000;

// Every `pattern` / `patternProperties` regex ajv compiles runs on RE2: linear in the input, so
// no tenant schema can hold the event loop (issue 18). `code` only names it in standalone output.
const regExp: RegExpEngine = Object.assign((pattern: string, u: string) => linearRegExp(pattern, u), { code: 'linearRegExp' });

/**
 * Compiles raw JSON Schemas (ajv; 2020-12 unless `$schema` names draft-07), every regex on RE2
 * (linearRegExp), and keeps the validators by schema content. The app owns one (through
 * `CatalogCaches`) so that tenants sharing a schema share its compiled validator.
 */
export class SchemaCompiler {
  private readonly cache = new Map<string, ArgsValidator>();
  private readonly engines = new Map<Dialect, Ajv>();

  /**
   * A schema with a pattern RE2 cannot run (backreference, lookaround) yields a validator that
   * refuses every call, naming the pattern's JSON pointer; it never falls back to V8's
   * backtracking engine. Any other uncompilable schema yields a validator that accepts any
   * object (the upstream stays the judge). Both are reported via `onError`.
   */
  compile(schema: JsonSchema, onError?: (err: Error) => void): ArgsValidator {
    const key = canonicalJson(schema);
    const hit = this.cache.get(key);
    if (hit) return hit;
    let validator: ArgsValidator;
    try {
      validator = wrap(this.compileAjv(schema));
    } catch (err) {
      onError?.(err instanceof Error ? err : new Error(String(err), { cause: err }));
      // A broken schema is not cached: the next compile reports it again to its own caller.
      if (err instanceof CatalogError && err.code === 'CATALOG_UNSUPPORTED_PATTERN') return refuseAll(schema, err);
      return acceptAnyObject;
    }
    if (this.cache.size >= MAX_CACHED) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(key, validator);
    return validator;
  }

  private compileAjv(schema: JsonSchema): ValidateFunction {
    const ajv = this.engine(dialectOf(schema.$schema));
    // The engine is already chosen, so `$schema` is dropped: ajv would otherwise need the exact
    // meta-schema URI registered (SDK zod schemas write draft-07 with and without `#`).
    const { $schema: _dialect, ...body } = schema;
    const validate = ajv.compile(body);
    // ajv caches compiled schemas by object identity; our copy is never reused, so free it.
    ajv.removeSchema(body);
    return validate;
  }

  private engine(dialect: Dialect): Ajv {
    let ajv = this.engines.get(dialect);
    if (!ajv) {
      const options = { strict: false, allErrors: false, addUsedSchema: false, validateFormats: true, code: { regExp } };
      ajv = dialect === 'draft-07' ? new Ajv(options) : dialect === '2019-09' ? new Ajv2019(options) : new Ajv2020(options);
      addLinearFormats(ajv);
      this.engines.set(dialect, ajv);
    }
    return ajv;
  }
}

/** Compiles one schema with `compiler` (default: a compiler of its own, sharing nothing). */
export function compileValidator(schema: JsonSchema, onError?: (err: Error) => void, compiler = new SchemaCompiler()): ArgsValidator {
  return compiler.compile(schema, onError);
}

function dialectOf(uri: unknown): Dialect {
  if (typeof uri !== 'string') return '2020-12';
  if (/draft-0[4-7]\b/.test(uri)) return 'draft-07';
  if (uri.includes('2019-09')) return '2019-09';
  return '2020-12';
}

function wrap(validate: ValidateFunction): ArgsValidator {
  return (args) => {
    if (validate(args)) return null;
    const errors = validate.errors ?? [];
    // With allErrors off there is one error, except under composites (anyOf, if/then), where
    // ajv lists branch errors first and the composite's own verdict last.
    const error = errors[errors.length - 1];
    return error ? describe(error) : 'arguments: are invalid';
  };
}

/** A tool whose schema cannot be checked without a backtracking engine is not callable through us. */
function refuseAll(schema: JsonSchema, err: CatalogError): ArgsValidator {
  const first = findUnsupportedPatterns(schema)[0];
  const message = first
    ? `inputSchema${first.pointer}: pattern is not supported (${first.reason}); the tool is refused until its server drops it`
    : `inputSchema: ${err.message}; the tool is refused until its server drops it`;
  return () => message;
}

const acceptAnyObject: ArgsValidator = (args) =>
  args !== null && typeof args === 'object' && !Array.isArray(args) ? null : 'arguments: must be object';

function describe(error: ErrorObject): string {
  const path = pointerSegments(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
    case 'dependentRequired':
      return `${field([...path, String(params.missingProperty)])}: is required`;
    case 'additionalProperties':
      return `${field([...path, String(params.additionalProperty)])}: is not an allowed property`;
    case 'unevaluatedProperties':
      return `${field([...path, String(params.unevaluatedProperty)])}: is not an allowed property`;
    case 'enum':
      return `${field(path)}: must be one of ${listValues(params.allowedValues)}`;
    case 'const':
      return `${field(path)}: must be ${JSON.stringify(params.allowedValue)}`;
    default:
      return `${field(path)}: ${error.message ?? 'is invalid'}`;
  }
}

function pointerSegments(pointer: string): string[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `['a', 'b', '0', 'c']` → `a.b[0].c`; the root is named `arguments`. */
function field(segments: string[]): string {
  if (segments.length === 0) return 'arguments';
  let out = '';
  for (const s of segments) {
    if (/^\d+$/.test(s)) out += `[${s}]`;
    else out += out ? `.${s}` : s;
  }
  return out || 'arguments';
}

function listValues(values: unknown): string {
  if (!Array.isArray(values)) return 'the allowed values';
  const shown = values
    .slice(0, 10)
    .map((v) => JSON.stringify(v))
    .join(', ');
  return values.length > 10 ? `${shown}, …` : shown;
}
