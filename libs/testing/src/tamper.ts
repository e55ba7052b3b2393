/**
 * `value` with the character at `index` (negative counts from the end) replaced by a different
 * one, so a sealed or signed blob is certainly altered. Pick an index inside the payload, not the
 * last base64 character, whose low bits may be padding a decoder ignores.
 */
export function tamper(value: string, index: number): string {
  const at = index < 0 ? value.length + index : index;
  if (at < 0 || at >= value.length) throw new RangeError(`index ${index} is outside a value of length ${value.length}`);
  const replacement = value[at] === 'A' ? 'B' : 'A';
  return value.slice(0, at) + replacement + value.slice(at + 1);
}
