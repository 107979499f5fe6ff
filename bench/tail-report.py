"""What B1's fixed-rate tail met: joins the load client's slowest request per 100 ms (LABEL.worst), the machine's
samples taken meanwhile (bench/tail-sampler.py) and the server's safepoint log (-Xlog:safepoint with the time
decorator), and prints one markdown row for the run:
  slow slots: the 100 ms slots whose slowest request took more than SLOW_MS, and the longest stretch of them;
  what ran in the 1.5 s around that stretch's start (0.5 s before, 1 s after), against the whole recording: the CPU in
  cores of the machine, the server, PostgreSQL's backends, its autovacuum workers and its checkpointer; and the time
  the server's JVM stood at safepoints (GC pauses included).
Usage: python3 bench/tail-report.py LABEL WORST_FILE SAMPLES_FILE SAFEPOINT_LOG [SLOW_MS (default 50)]"""
import datetime
import re
import sys

label, worst_path, samples_path, safepoint_path = sys.argv[1:5]
slow_ms = float(sys.argv[5]) if len(sys.argv) > 5 else 50.0

slots = {}
origin = None
with open(worst_path) as f:
    for line in f:
        m = re.match(r"# recording from (\d+) epoch ms", line)
        if m:
            origin = int(m.group(1))
            continue
        secs, ms = line.split()[0], line.split()[2]
        slots[round(float(secs) * 10)] = float(ms)
if origin is None or not slots:
    print("| %s | no recording start or no slots in %s | | | | |" % (label, worst_path))
    sys.exit(0)
end = origin + (max(slots) + 1) * 100

samples = []  # (epoch ms, [machine, server, backends, autovacuum, checkpointer])
with open(samples_path) as f:
    for line in f:
        v = line.split()
        samples.append((int(v[0]), [float(x) for x in v[1:]]))

stops = []  # (start epoch ms, duration ms) of each safepoint
with open(safepoint_path) as f:
    for line in f:
        m = re.match(r"\[([^\]]+)\].*Safepoint .*Total: (\d+) ns", line)
        if m:
            at = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000
            ms = int(m.group(2)) / 1e6
            stops.append((at - ms, ms))


def during(a, b):
    """Mean cores of each sampled group over samples ending in [a, b), and the ms the JVM stood in [a, b)."""
    rows = [v for t, v in samples if a <= t < b]
    means = [sum(col) / len(rows) for col in zip(*rows)] if rows else [0.0] * 5
    stood = sum(min(s + d, b) - max(s, a) for s, d in stops if s < b and s + d > a)
    return means, stood


def describe(means, stood):
    return "%.2f / %.2f / %.2f / %.2f / %.2f; %.0f ms" % (*means, stood)


slow = sorted(i for i, ms in slots.items() if ms > slow_ms)
best = (0, None)  # (length, first slot) of the longest stretch of consecutive slow slots
run_start, run_len = None, 0
for i in slow:
    if run_start is not None and i == run_start + run_len:
        run_len += 1
    else:
        run_start, run_len = i, 1
    if run_len > best[0]:
        best = (run_len, run_start)

whole = during(origin, end)
if best[1] is None:
    print("| %s | 0 of %d | - | %s | - |" % (label, len(slots), describe(*whole)))
else:
    at = origin + best[1] * 100
    near = during(at - 500, at + 1000)
    print("| %s | %d of %d | %.1f s from %.1f s (worst %.0f ms) | %s | %s |" % (
        label, len(slow), len(slots), best[0] / 10, best[1] / 10,
        max(slots[i] for i in range(best[1], best[1] + best[0])), describe(*whole), describe(*near)))
