-- wrk script of `npm run bench`: one fixed POST body, extra headers, and a machine-readable summary.
--   WRK_BODY_FILE  the request body (JSON)
--   WRK_HEADERS    extra headers, "Name: value|Name2: value2"
-- done() prints one line, WRKJSON {...}, latencies in microseconds.

local file = assert(io.open(os.getenv("WRK_BODY_FILE"), "rb"), "cannot open WRK_BODY_FILE")
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = "application/json"
for item in string.gmatch(os.getenv("WRK_HEADERS") or "", "[^|]+") do
  local name, value = item:match("^%s*([^:]+):%s*(.-)%s*$")
  if name then wrk.headers[name] = value end
end

function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_s":%.3f,"rps":%.1f,' ..
    '"err_connect":%d,"err_read":%d,"err_write":%d,"err_status":%d,"err_timeout":%d,' ..
    '"lat_p50_us":%d,"lat_p90_us":%d,"lat_p99_us":%d,"lat_max_us":%d}\n',
    summary.requests, seconds, summary.requests / seconds,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
