/**
 * The shared limiter's only Redis step: every rule of a request checked and consumed in one
 * atomic script (one round trip), all or nothing — a request refused by its tool limit does
 * not spend the tenant budget. Time is Redis's own clock, so replicas with skewed clocks
 * share one bucket. KEYS: one per rule (same hash tag ⇒ one Cluster slot). ARGV per rule:
 * `r`, emission interval ms, burst | `q`, limit, ms until reset.
 * Returns {1} or {0, index of the refusing rule (1-based), retry-after ms}.
 */
export const GCRA_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS
local next = {}
local worst, wait = 0, 0
for i = 1, n do
  local kind = ARGV[i * 3 - 2]
  local a = tonumber(ARGV[i * 3 - 1])
  local b = tonumber(ARGV[i * 3])
  if kind == 'r' then
    local tat = tonumber(redis.call('GET', KEYS[i])) or now
    if tat < now then tat = now end
    local new_tat = tat + a
    local allow_at = new_tat - a * b
    if allow_at > now then
      if allow_at - now > wait then worst, wait = i, allow_at - now end
    else
      next[i] = new_tat
    end
  else
    local used = tonumber(redis.call('GET', KEYS[i])) or 0
    if used + 1 > a then
      local ttl = redis.call('PTTL', KEYS[i])
      if ttl < 1 then ttl = b end
      if ttl > wait then worst, wait = i, ttl end
    end
  end
end
if worst > 0 then return {0, worst, math.ceil(wait)} end
for i = 1, n do
  if ARGV[i * 3 - 2] == 'r' then
    redis.call('SET', KEYS[i], string.format('%.3f', next[i]), 'PX', math.max(1, math.ceil(next[i] - now)))
  else
    if redis.call('INCR', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], math.max(1, math.ceil(tonumber(ARGV[i * 3])))) end
  end
end
return {1}
`;
