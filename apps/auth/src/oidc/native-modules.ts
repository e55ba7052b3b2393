import type * as OidcProviderModule from 'oidc-provider';

/*
 * oidc-provider and node-pg-migrate are ESM-only. Node 24 loads them with require(esm), but
 * jest's module registry cannot (it only transforms jose/openid-client), so both are loaded
 * through Node's own require. Everything that talks to the provider goes through this file.
 */
const nodeModule = process.getBuiltinModule('node:module') as typeof import('node:module');
const nativeRequire = nodeModule.createRequire(__filename);

/** The oidc-provider module (Provider, errors, interactionPolicy). */
export const oidc = nativeRequire('oidc-provider') as typeof OidcProviderModule;

/** node-pg-migrate's programmatic runner. */
export const pgMigrate = nativeRequire('node-pg-migrate') as typeof import('node-pg-migrate');

/*
 * Under jest, our code runs in a vm context whose Object.prototype differs from the one
 * oidc-provider (loaded natively) sees, and oidc-provider checks "plain object" by
 * prototype. Plain data handed to it is therefore rebuilt by a function compiled in Node's
 * main context. In production both are the same realm and this is a cheap copy.
 */
const vm = process.getBuiltinModule('node:vm') as typeof import('node:vm');
const copyIntoMainRealm = vm.runInThisContext(`(function copy(v) {
  if (Array.isArray(v)) return v.map(copy);
  if (v && typeof v === 'object') {
    const proto = Object.getPrototypeOf(v);
    if (proto !== null && Object.getPrototypeOf(proto) !== null) return v;
    const out = {};
    for (const k of Object.keys(v)) out[k] = copy(v[k]);
    return out;
  }
  return v;
})`) as <T>(v: T) => T;

/** Rebuilds plain objects/arrays (deeply) in the realm oidc-provider runs in; functions and class instances pass through. */
export function mainRealm<T>(value: T): T {
  return copyIntoMainRealm(value);
}
