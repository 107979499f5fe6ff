"""What the machine was doing while B1's fixed-rate client ran: every 100 ms, the CPU (in cores) of the whole machine,
of the server under test, of PostgreSQL's backends, of its autovacuum workers and of its checkpointer, read from /proc
(no query of its own, so sampling adds no load to the database). Runs until it is sent SIGTERM.
Usage: python3 bench/tail-sampler.py OUT_FILE SERVER_PID
Each line: epoch ms, machine, server, backends, autovacuum, checkpointer (cores, averaged over the interval).
bench/tail-report.py joins it with the client's slowest request per 100 ms and the server's GC log."""
import os
import signal
import sys
import time

out_path, server_pid = sys.argv[1], sys.argv[2]
HZ = os.sysconf("SC_CLK_TCK")
running = True


def stop(*_):
    global running
    running = False


signal.signal(signal.SIGTERM, stop)


def machine_ticks():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[0] + v[1] + v[2] + v[5] + v[6]  # user, nice, system, irq, softirq: as b1-callbacks.sh's busy()


def ticks(pid):
    try:
        with open("/proc/%s/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, IndexError):
        return 0


ROLES = {}  # pid -> role of PostgreSQL's processes, found by a scan of /proc once a second


def scan():
    """PostgreSQL's processes by role, from their titles (postgres: 15/main: autovacuum worker ...)."""
    ROLES.clear()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                title = f.read().decode(errors="replace")
        except OSError:
            continue
        if not title.startswith("postgres:"):
            continue
        if "autovacuum worker" in title:
            ROLES[pid] = "autovacuum"
        elif "checkpointer" in title:
            ROLES[pid] = "checkpointer"
        elif not any(w in title for w in ("walwriter", "background writer", "launcher", "stats", "logger")):
            ROLES[pid] = "backend"


def postgres_groups():
    groups = {"backend": 0, "autovacuum": 0, "checkpointer": 0}
    for pid, role in ROLES.items():
        groups[role] += ticks(pid)
    return groups


with open(out_path, "w") as out:
    scan()
    n = 0
    last_t, last_m, last_s, last_g = time.time(), machine_ticks(), ticks(server_pid), postgres_groups()
    while running:
        time.sleep(0.1)
        t, m, s, g = time.time(), machine_ticks(), ticks(server_pid), postgres_groups()
        dt = (t - last_t) * HZ
        # A process that ended since the last sample (a backend, an autovacuum worker) drops its ticks: clamp at 0.
        cores = [max(0, m - last_m) / dt, max(0, s - last_s) / dt] + [max(0, g[k] - last_g[k]) / dt for k in
                                                                   ("backend", "autovacuum", "checkpointer")]
        out.write("%d %s\n" % (t * 1000, " ".join("%.2f" % c for c in cores)))
        last_t, last_m, last_s, last_g = t, m, s, g
        n += 1
        if n % 10 == 0:
            # Processes started since the last scan (an autovacuum worker) count from here on: the figures are a floor.
            scan()
            last_g = postgres_groups()
