/**
 * Scope hierarchy: a granted scope satisfies a needed one when they are equal or the needed
 * one extends it with `:` segments (`mcp:tools` satisfies `mcp:tools:read`, not vice versa).
 */
export function scopeSatisfies(granted: readonly string[], needed: string): boolean {
  return granted.some((g) => g === needed || needed.startsWith(`${g}:`));
}

/** The needed scopes not covered by the granted ones. */
export function missingScopes(granted: readonly string[], needed: readonly string[]): string[] {
  return needed.filter((n) => !scopeSatisfies(granted, n));
}
