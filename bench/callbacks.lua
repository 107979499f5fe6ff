-- wrk script for B1: each thread sends its own slice of pre-signed callbacks (one per order, each a real
-- Pending -> Paid transition), read from the file the harness wrote. wrk -s bench/callbacks.lua ...
local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
  table.insert(threads, thread)
end

function init(args)
  local total = tonumber(os.getenv("B1_THREADS") or "2")
  local file = os.getenv("B1_REQUESTS") or "target/bench/callbacks.txt"
  requests = {}
  local n = 0
  for line in io.lines(file) do
    n = n + 1
    if (n % total) == (index - 1) then
      local id, ts, sig, body = line:match("^(%S+)\t(%S+)\t(%S+)\t(.*)$")
      requests[#requests + 1] = wrk.format("POST", "/api/payments/callback", {
        ["Content-Type"] = "application/json",
        ["webhook-id"] = id, ["webhook-timestamp"] = ts, ["webhook-signature"] = sig }, body)
    end
  end
  position = 0
end

function request()
  position = position + 1
  if position > #requests then
    position = 1 -- out of fresh orders: repeats answer already-paid (the harness sizes the file to avoid this)
  end
  return requests[position]
end

local statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  io.write(string.format("latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
  io.write(string.format("non-2xx or socket errors: %d\n", summary.errors.status + summary.errors.connect
    + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
