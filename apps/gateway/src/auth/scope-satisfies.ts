// The scope rule lives in libs/catalog so the registry's Explain API judges a tool's scopes with the same function.
export { missingScopes, scopeSatisfies } from '@switchboard/catalog';
