#!/usr/bin/env python3
"""Samples the CPU time of each component of the stack from /proc while a load run
goes on, until SIGTERM/SIGINT, then writes a JSON summary.

  cpu_sampler.py --out cpu.json [--interval 1] [--jmeter-pid PID]

Components, found by the port they listen on (ports from the environment as in
CONTRACTS.md: DB_PORT, MEMCACHED_PORT, MONGO_URL, HAPROXY_PORT, WEBAPP_PORT,
ENGINE_PORT), since other instances of the same programs may run on this host:
mariadbd, memcached, ferretdb, haproxy, node (cluster primary + workers), apache2
(engine master + workers), engine jobs (gcc and the sandboxed runs: the children the
apache2 workers waited for, from their cutime+cstime), jmeter (the given java pid),
and the whole machine from /proc/stat.
CPU is reported in CPU-seconds and as average cores busy (1.0 = one core all along).
"""
import argparse
import json
import os
import signal
import time

HZ = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count() or 1


def listening_pids(port):
    """pids holding a TCP socket that listens on `port` (IPv4 or IPv6)."""
    inodes = set()
    for fn in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(fn) as f:
                next(f)
                for line in f:
                    p = line.split()
                    if p[3] == "0A" and int(p[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(p[9])
        except OSError:
            pass
    pids = set()
    if not inodes:
        return pids
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    link = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    pids.add(int(pid))
                    break
        except OSError:
            continue
    return pids


def read_stat(pid):
    """(comm, ppid, utime+stime, cutime+cstime) in clock ticks, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    lp, rp = s.index("("), s.rindex(")")
    comm = s[lp + 1:rp]
    rest = s[rp + 2:].split()
    # rest[0] is field 3 (state); utime=14, stime=15, cutime=16, cstime=17 (1-based)
    return comm, int(rest[1]), int(rest[11]) + int(rest[12]), int(rest[13]) + int(rest[14])


def machine():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v[:8]) - idle, sum(v[:8])


COMPONENTS = [  # name, env var of its port, default port, process names
    ("mariadbd", "DB_PORT", 3307, ("mariadbd", "mysqld")),
    ("memcached", "MEMCACHED_PORT", 11211, ("memcached",)),
    ("ferretdb", "MONGO_PORT", 27017, None),
    ("haproxy", "HAPROXY_PORT", 8080, ("haproxy",)),
    ("node", "WEBAPP_PORT", 3000, None),
    ("apache2", "ENGINE_PORT", 8081, ("apache2", "httpd")),
]


def component_ports():
    ports = {}
    for name, var, default, _ in COMPONENTS:
        v = os.environ.get(var, "")
        if name == "ferretdb" and not v:
            url = os.environ.get("MONGO_URL", "")
            try:
                v = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[1]
            except IndexError:
                v = ""
        ports[name] = int(v) if v.isdigit() else default
    return ports


class Sampler:
    """Each component is the process listening on its port (other instances of the
    same programs may run on this host), its same-named parent (haproxy and apache2
    masters, the node cluster primary) and its same-named descendants (workers)."""

    def __init__(self, jmeter_pid, ports):
        self.jmeter_pid = jmeter_pid
        self.ports = ports
        self.names = {n: names for n, _, _, names in COMPONENTS}
        self.roots = {}
        self.n = 0
        self.prev = {}            # pid -> (component, own ticks, children ticks)
        self.ticks = {}           # component -> ticks
        self.peak = {}            # component -> max cores in one interval
        self.pids = {}            # component -> set of pids seen
        self.started = False

    def resolve_roots(self, procs):
        self.roots = {}
        for comp, port in self.ports.items():
            for pid in listening_pids(port):
                if pid not in procs:
                    continue
                names = self.names[comp]
                if names and procs[pid][0] not in names:
                    continue
                root = pid
                # climb to the same-named parent (master / cluster primary)
                while procs.get(procs[root][1], ("",))[0] == procs[pid][0]:
                    root = procs[root][1]
                self.roots[root] = comp

    def membership(self, procs):
        member = {}
        if self.jmeter_pid in procs:
            member[self.jmeter_pid] = "jmeter"
        children = {}
        for pid, (comm, ppid, _, _) in procs.items():
            children.setdefault(ppid, []).append(pid)
        for root, comp in self.roots.items():
            if root not in procs:
                continue
            comm = procs[root][0]
            stack = [root]
            while stack:
                pid = stack.pop()
                member[pid] = comp
                stack.extend(c for c in children.get(pid, ()) if procs[c][0] == comm)
        return member

    def sample(self, dt):
        procs = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                st = read_stat(int(name))
                if st is not None:
                    procs[int(name)] = st
        if self.n % 5 == 0 or not self.roots:
            self.resolve_roots(procs)
        self.n += 1
        member = self.membership(procs)
        interval = {}
        prev = {}
        for pid, comp in member.items():
            comm, ppid, own, children = procs[pid]
            p = self.prev.get(pid)
            d_own = own - p[1] if p else (own if self.started else 0)
            interval[comp] = interval.get(comp, 0) + max(d_own, 0)
            self.pids.setdefault(comp, set()).add(pid)
            # apache2 workers (children of the apache2 master) reap gcc and the runs
            if comp == "apache2" and member.get(ppid) == "apache2":
                d_ch = children - p[2] if p else (children if self.started else 0)
                interval["engine jobs"] = interval.get("engine jobs", 0) + max(d_ch, 0)
            prev[pid] = (comp, own, children)
        self.prev = prev
        for comp, t in interval.items():
            self.ticks[comp] = self.ticks.get(comp, 0) + t
            if dt > 0:
                self.peak[comp] = max(self.peak.get(comp, 0.0), t / HZ / dt)
        self.started = True


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--jmeter-pid", type=int, default=0)
    a = ap.parse_args()

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    s = Sampler(a.jmeter_pid, component_ports())
    t0 = last = time.monotonic()
    m0 = mb = machine()
    s.sample(0)
    mpeak = 0.0
    loads = [loadavg()]
    while not stop:
        time.sleep(a.interval)
        now = time.monotonic()
        s.sample(now - last)
        m = machine()
        if m[1] > mb[1]:
            mpeak = max(mpeak, (m[0] - mb[0]) / (m[1] - mb[1]) * NCPU)
        mb, last = m, now
        loads.append(loadavg())
    wall = max(time.monotonic() - t0, 1e-6)
    m1 = machine()
    out = {"wall_s": round(wall, 2), "cores": NCPU, "interval_s": a.interval, "components": {}}
    order = ["mariadbd", "memcached", "ferretdb", "haproxy", "node", "apache2", "engine jobs", "jmeter"]
    for comp in order + sorted(set(s.ticks) - set(order)):
        if comp not in s.ticks and comp not in s.pids:
            continue
        sec = s.ticks.get(comp, 0) / HZ
        out["components"][comp] = {
            "cpu_s": round(sec, 2),
            "avg_cores": round(sec / wall, 3),
            "peak_cores": round(s.peak.get(comp, 0.0), 2),
            "processes": len(s.pids.get(comp, ())),
        }
    busy = (m1[0] - m0[0]) / max(m1[1] - m0[1], 1)
    out["machine"] = {"avg_busy_pct": round(100 * busy, 1), "avg_cores": round(busy * NCPU, 2),
                      "peak_cores": round(mpeak, 2)}
    # How quiet the host was: everything on it that is not this stack or JMeter
    # (other checkouts' stacks and suites share the cores), and the 1-minute load.
    ours = sum(c["cpu_s"] for c in out["components"].values()) / wall
    out["others"] = {"avg_cores": round(max(0.0, busy * NCPU - ours), 2)}
    out["loadavg_1m"] = {"start": loads[0], "max": max(loads), "end": loads[-1]}
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
