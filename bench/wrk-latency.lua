-- The latencies wrk measured, recovered from the histogram its done() is given. Loaded with
-- dofile() by the benches' wrk scripts (bench/gateway, bench/scale, bench/isolation).
--
-- Why: before done() runs, wrk 4.x "corrects" its latency histogram for coordinated omission
-- (wrk.c: stats_correct(latency, e) with e = duration_us / (requests / connections), integer
-- division). For every recorded latency n >= 2e it adds one synthetic sample at each of n - e,
-- n - 2e, ... while > e. That models an open-loop client sending at a fixed rate; wrk is a
-- closed loop (a connection sends its next request when the last one is answered), and at one
-- connection e is the mean latency itself, so one 11 ms GC pause becomes ~80 samples and one
-- stall a second sets p90 and p99. Seen in bench/gateway: at one connection the upstream alone
-- read p50 0.11 ms, p90 2.0 ms, p99 11.5 ms at 7,078 req/s, which the mean (at most 1/7,078 s
-- = 0.14 ms at one connection) rules out for measured requests.
--
-- The correction inverts exactly: the loop reads each bucket before any higher bucket has added
-- to it, so corrected[m] = raw[m] + raw[m + e] + raw[m + 2e] + ..., for m > e, and corrected[m] =
-- raw[m] below. Hence raw[m] = corrected[m] - corrected[m + e] for m > e.
--
-- measured(summary, latency, connections) returns { count, p50, p75, p90, p95, p99, p999, mean, max } in µs over
-- the measured samples, plus `negative` (buckets the inversion would make negative: 0 unless
-- wrk's correction changed) and wrk's own corrected p50 / p99 as co_p50 / co_p99 for reference.
-- count equals summary.requests when no request timed out: the caller checks that.
local M = {}

function M.measured(summary, latency, connections)
  local corrected, values = {}, {}
  for i = 1, #latency do
    local v, c = latency(i)
    corrected[v] = c
    values[i] = v
  end
  local perConnection = math.floor(summary.requests / connections)
  local e = nil
  if perConnection > 0 then e = math.floor(summary.duration / perConnection) end
  local hist, count, sum, max, negative = {}, 0, 0, 0, 0
  for _, v in ipairs(values) do
    local c = corrected[v]
    if e ~= nil and v > e then c = c - (corrected[v + e] or 0) end
    if c < 0 then
      negative = negative + 1
    elseif c > 0 then
      hist[#hist + 1] = { v, c }
      count = count + c
      sum = sum + v * c
      max = v
    end
  end
  -- wrk's own rule (stats_percentile): the first value whose cumulative count reaches
  -- round(p / 100 * count + 0.5).
  local function percentile(p)
    local rank = math.floor(p / 100 * count + 0.5 + 0.5)
    local total = 0
    for _, vc in ipairs(hist) do
      total = total + vc[2]
      if total >= rank then return vc[1] end
    end
    return max
  end
  local mean = 0
  if count > 0 then mean = sum / count end
  return {
    count = count, p50 = percentile(50), p75 = percentile(75), p90 = percentile(90), p95 = percentile(95),
    p99 = percentile(99), p999 = percentile(99.9), mean = mean, max = max,
    negative = negative, co_p50 = latency:percentile(50), co_p99 = latency:percentile(99),
  }
end

-- The same as a JSON object (µs), for the benches' one-line results.
function M.json(m)
  return string.format('{"count":%d,"p50":%d,"p75":%d,"p90":%d,"p95":%d,"p99":%d,"p999":%d,"mean":%.1f,"max":%d,"negative":%d,"coP50":%d,"coP99":%d}',
    m.count, m.p50, m.p75, m.p90, m.p95, m.p99, m.p999, m.mean, m.max, m.negative, m.co_p50, m.co_p99)
end

return M
