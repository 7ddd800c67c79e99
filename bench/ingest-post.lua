-- wrk script of bench/ingest.sh: POST /v1/daily-values, cycling through distinct bodies.
--
--   wrk -tT -cC -dDs --latency -s bench/ingest-post.lua http://HOST:PORT -- BODIES_FILE KEY_FILE T
--
-- BODIES_FILE: one request body per line (a JSON array of 100 DailyValue events); KEY_FILE: the API key on its first
-- line (sent as `Authorization: Bearer KEY`, with `Content-Type: application/json`); T: wrk's thread count, so that
-- the threads start at different places of the cycle. Every request is formatted once, in init. done() prints one
-- machine-readable line `wrk_result key=value …` (latencies in µs, from wrk's own histogram) and one
-- `wrk_status CODE COUNT` line per HTTP status answered, counted by every thread in response().

local threads = {}

function setup(thread)
    thread:set("id", #threads)
    table.insert(threads, thread)
end

function init(args)
    local bodies = assert(io.open(args[1], "r"), "cannot open the bodies file")
    local keyfile = assert(io.open(args[2], "r"), "cannot open the key file")
    local key = keyfile:read("*l")
    keyfile:close()
    local nthreads = tonumber(args[3]) or 1
    prepared = {}
    for body in bodies:lines() do
        local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. key }
        prepared[#prepared + 1] = wrk.format("POST", "/v1/daily-values", headers, body)
    end
    bodies:close()
    assert(#prepared > 0, "the bodies file is empty")
    -- Thread k starts at k/T of the cycle.
    index = math.floor(id * #prepared / nthreads) % #prepared
    statuses = {}
end

function request()
    index = index % #prepared + 1
    return prepared[index]
end

function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
    local codes = {}
    for _, thread in ipairs(threads) do
        for code, count in pairs(thread:get("statuses") or {}) do
            codes[code] = (codes[code] or 0) + count
        end
    end
    local e = summary.errors
    io.write(string.format(
        "wrk_result requests=%d duration_us=%d bytes=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d mean_us=%.0f "
            .. "err_connect=%d err_read=%d err_write=%d err_status=%d err_timeout=%d\n",
        summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(90),
        latency:percentile(99), latency.max, latency.mean, e.connect, e.read, e.write, e.status, e.timeout))
    for code, count in pairs(codes) do
        io.write(string.format("wrk_status %d %d\n", code, count))
    end
end
