import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import serverSchema from './schemas/server.schema.json';

/** The `$schema` URL of the vendored official schema (what served documents declare). */
export const SERVER_JSON_SCHEMA_URL = serverSchema.$id;

/** A place in a `server.json` and what is wrong there. */
export interface ServerJsonProblem {
  /** Dotted path inside the document (`remotes.0.url`), empty for the document itself. */
  path: string;
  message: string;
}

// Draft-07 (ajv's default dialect). strict off: the schema carries OpenAPI's `example` keyword.
const ajv = new Ajv({ strict: false, allErrors: false });
addFormats(ajv);
const validate = ajv.compile(serverSchema);

/**
 * Checks a document against the official MCP Registry `server.json` schema (vendored under
 * `schemas/`); undefined when valid, else the first problem with its path.
 */
export function serverJsonProblem(doc: unknown): ServerJsonProblem | undefined {
  if (validate(doc)) return undefined;
  const err = validate.errors?.[0];
  if (!err) return { path: '', message: 'does not match the server.json schema' };
  const path = err.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (err.keyword === 'required') path.push(String((err.params as { missingProperty?: string }).missingProperty));
  const message = err.keyword === 'required' ? 'is required' : (err.message ?? 'is invalid');
  return { path: path.join('.'), message };
}
