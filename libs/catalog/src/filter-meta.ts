/**
 * The `_meta` keys a surface keeps: each rule is an exact key (`ui`) or a prefix ending in
 * `/` (`openai/`); `*` keeps every key. `securitySchemes` survives only when `keepSecuritySchemes`.
 * Returns undefined when nothing is left, so the field can be left out.
 */
export function filterMeta(
  meta: Record<string, unknown> | undefined,
  keepKeys: readonly string[],
  keepSecuritySchemes: boolean,
): Record<string, unknown> | undefined {
  if (!meta || keepKeys.length === 0) return undefined;
  const keepAll = keepKeys.includes('*');
  const out: Record<string, unknown> = {};
  let kept = 0;
  for (const [key, value] of Object.entries(meta)) {
    if (key === 'securitySchemes' && !keepSecuritySchemes) continue;
    if (!keepAll && !keepKeys.some((rule) => (rule.endsWith('/') ? key.startsWith(rule) : key === rule))) continue;
    out[key] = value;
    kept++;
  }
  return kept > 0 ? out : undefined;
}
