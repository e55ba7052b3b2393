/**
 * The shared limiter's Redis step: every rule of a request checked and consumed in one atomic
 * script (one round trip), all or nothing — a request refused by its tool limit does not spend
 * the tenant budget. Time is Redis's own clock, so replicas with skewed clocks share one
 * bucket. KEYS: one per rule (same hash tag ⇒ one Cluster slot). ARGV[1]: how many units the
 * caller wants (a lease; 1 = this request only); then per rule `r`, emission interval ms,
 * burst | `q`, limit, ms until reset.
 * Grants g = min(wanted, what every rule has left now) ≥ 1 units of every rule, or nothing.
 * Returns {1, g} or {0, index of the refusing rule (1-based), retry-after ms for one unit}.
 */
export const GCRA_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS
local want = tonumber(ARGV[1])
local base = {}
local worst, wait = 0, 0
for i = 1, n do
  local kind = ARGV[i * 3 - 1]
  local a = tonumber(ARGV[i * 3])
  local b = tonumber(ARGV[i * 3 + 1])
  if kind == 'r' then
    local tat = tonumber(redis.call('GET', KEYS[i])) or now
    if tat < now then tat = now end
    base[i] = tat
    local left = math.floor((now - tat) / a + b + 1e-9)
    if left < 1 then
      local allow_at = tat + a - a * b
      if allow_at - now > wait then worst, wait = i, allow_at - now end
    elseif left < want then want = left end
  else
    local used = tonumber(redis.call('GET', KEYS[i])) or 0
    local left = a - used
    if left < 1 then
      local ttl = redis.call('PTTL', KEYS[i])
      if ttl < 1 then ttl = b end
      if ttl > wait then worst, wait = i, ttl end
    elseif left < want then want = left end
  end
end
if worst > 0 then return {0, worst, math.max(1, math.ceil(wait))} end
for i = 1, n do
  if ARGV[i * 3 - 1] == 'r' then
    local next = base[i] + want * tonumber(ARGV[i * 3])
    redis.call('SET', KEYS[i], string.format('%.3f', next), 'PX', math.max(1, math.ceil(next - now)))
  else
    if redis.call('INCRBY', KEYS[i], want) == want then redis.call('PEXPIRE', KEYS[i], math.max(1, math.ceil(tonumber(ARGV[i * 3 + 1])))) end
  end
end
return {1, want}
`;

/**
 * Gives back the units of a lease a replica did not spend (same KEYS and ARGV layout; ARGV[1] =
 * units to return): a rate bucket's arrival time moves back by that many intervals (never before
 * now), a quota's count down (never below zero, its reset unchanged).
 */
export const REFUND_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local units = tonumber(ARGV[1])
for i = 1, #KEYS do
  local current = tonumber(redis.call('GET', KEYS[i]))
  if current then
    if ARGV[i * 3 - 1] == 'r' then
      local back = current - units * tonumber(ARGV[i * 3])
      if back <= now then redis.call('DEL', KEYS[i])
      else redis.call('SET', KEYS[i], string.format('%.3f', back), 'PX', math.max(1, math.ceil(back - now))) end
    else
      redis.call('SET', KEYS[i], math.max(0, current - units), 'KEEPTTL')
    end
  end
end
return 1
`;
