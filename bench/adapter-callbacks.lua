-- wrk script for B1 through the gateway adapters (bench/b1-adapters.sh): each thread sends its own slice of
-- pre-signed gateway events (one per order, each a real Pending -> Paid), read from the file bench/sign-adapters.py
-- wrote: per line the path, header name and value pairs, then the body, tab-separated. done() prints every answer's
-- outcome, so the harness can tell a run of applied payments from a fast run of refusals.
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
  table.insert(threads, thread)
end

function init(args)
  local total = tonumber(os.getenv("B1_THREADS") or "2")
  local file = os.getenv("B1_REQUESTS")
  requests = {}
  outcomes = {}
  local n = 0
  for line in io.lines(file) do
    n = n + 1
    if (n % total) == (index - 1) then
      local fields = {}
      for field in (line .. "\t"):gmatch("([^\t]*)\t") do fields[#fields + 1] = field end
      local headers = {}
      for i = 2, #fields - 2, 2 do headers[fields[i]] = fields[i + 1] end
      requests[#requests + 1] = wrk.format("POST", fields[1], headers, fields[#fields])
    end
  end
  position = 0
end

function request()
  position = position + 1
  if position > #requests then
    position = 1 -- out of fresh orders: repeats answer already-paid, which the harness reports as a failed run
  end
  return requests[position]
end

function response(status, headers, body)
  local outcome = body and body:match('"outcome"%s*:%s*"([^"]*)"') or ("http-" .. status)
  outcomes[outcome] = (outcomes[outcome] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
  io.write(string.format("non-2xx or socket errors: %d\n", summary.errors.status + summary.errors.connect
    + summary.errors.read + summary.errors.write + summary.errors.timeout))
  local all = {}
  for _, thread in ipairs(threads) do
    for outcome, n in pairs(thread:get("outcomes")) do all[outcome] = (all[outcome] or 0) + n end
  end
  local parts = {}
  for outcome, n in pairs(all) do parts[#parts + 1] = outcome .. "=" .. n end
  table.sort(parts)
  io.write("outcomes: " .. table.concat(parts, " ") .. "\n")
end
