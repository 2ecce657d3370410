-- wrk script for serve-bench.sh: GET the paths listed in a file, one a line, cycling through
-- them (each wrk thread starts at its own place in the list), and at the end print one line
-- of figures that serve-bench.sh reads:
--
--   wrk -t1 -c50 -d20s --latency -s urls.lua http://127.0.0.1:PORT -- PATHS_FILE
--
-- Every request is built in init(), so request() costs a table lookup (wrk's own advice for a
-- fast server). No response() function: wrk then skips parsing headers and bodies in Lua, and
-- counts statuses above 399 itself (summary.errors.status).

local requests = {}
local count = 0
local next_index = 1
local thread_number = 0
local threads = {}

function setup(thread)
  thread:set("thread_number", thread_number)
  thread_number = thread_number + 1
  table.insert(threads, thread)
end

function init(args)
  local file = args[1]
  if file == nil then
    error("give the file of paths after --")
  end
  for line in io.lines(file) do
    if line ~= "" then
      count = count + 1
      requests[count] = wrk.format("GET", line)
    end
  end
  if count == 0 then
    error(file .. " holds no path")
  end
  -- Threads start far apart in the list, so that they do not ask for the same files in step.
  next_index = (thread_number * 7919) % count + 1
end

function request()
  local r = requests[next_index]
  next_index = next_index % count + 1
  return r
end

function done(summary, latency, rates)
  local e = summary.errors
  io.write(string.format(
    "FIGURES requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d status=%d timeout=%d " ..
    "p50_us=%d p90_us=%d p99_us=%d max_us=%d mean_us=%.1f\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
