/**
 * A BullMQ key prefix wrapped in a Redis Cluster hash tag (`bull` → `{bull}`), so every key
 * of every queue under it hashes to one slot and BullMQ's multi-key Lua scripts run on a
 * Cluster. A prefix that already carries a non-empty `{…}` tag is kept as is. Used on every
 * topology, so moving from one Redis to a Cluster changes no key.
 */
export function bullPrefix(prefix: string): string {
  return /\{[^}]+\}/.test(prefix) ? prefix : `{${prefix}}`;
}
