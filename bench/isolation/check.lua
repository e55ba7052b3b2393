-- wrk script for bench/isolation: POSTs one JSON-RPC request (BODY env) and checks every
-- response (EXPECT env must occur in the body, "isError":true and "error": must not).
-- done() prints one JSON line: requests, valid, invalid, p50/p99 in microseconds (the measured
-- latencies, bench/wrk-latency.lua: WRK_LATENCY_LUA env is its path, CONNECTIONS wrk's -c).
local latencyOf = dofile(os.getenv("WRK_LATENCY_LUA"))
local connections = tonumber(os.getenv("CONNECTIONS"))
local body = os.getenv("BODY")
local expect = os.getenv("EXPECT")
wrk.method = "POST"
wrk.body = body
wrk.headers["content-type"] = "application/json"
wrk.headers["accept"] = "application/json, text/event-stream"
wrk.headers["mcp-protocol-version"] = "2025-11-25"

local threads = {}
function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  valid = 0
  invalid = 0
  sample = ""
end

function response(status, headers, b)
  if status == 200 and string.find(b, expect, 1, true) and not string.find(b, '"isError":true', 1, true) and not string.find(b, '"error":{', 1, true) then
    valid = valid + 1
  else
    invalid = invalid + 1
    if sample == "" then sample = tostring(status) .. " " .. string.sub(b, 1, 200) end
  end
end

function done(summary, latency, requests)
  local v, i, s = 0, 0, ""
  for _, t in ipairs(threads) do
    v = v + t:get("valid")
    i = i + t:get("invalid")
    local ts = t:get("sample")
    if s == "" and ts ~= nil then s = ts end
  end
  s = string.gsub(s, '[%c"\\]', ' ')
  local l = latencyOf.measured(summary, latency, connections)
  io.write(string.format('RESULT {"requests":%d,"durationUs":%d,"valid":%d,"invalid":%d,"errors":%d,"timeouts":%d,"p50":%d,"p99":%d,"latencyUs":%s,"sample":"%s"}\n',
    summary.requests, summary.duration, v, i, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout + summary.errors.status,
    summary.errors.timeout, l.p50, l.p99, latencyOf.json(l), s))
end
