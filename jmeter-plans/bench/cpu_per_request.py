#!/usr/bin/env python3
"""CPU microseconds per request, by request kind and by component (issue 17).

Sends REQUESTS requests of one kind at a time (login, home, codebook, editor, save:
the thesis' webapp workload) through HAProxy with CONCURRENCY keep-alive clients,
as load students from the load CSV, and reads the CPU time the stack's processes
used meanwhile from /proc. The same clients then measure a floor in the same run: a
bare Node http server answering 204 (no Express, no session, no SQL), so the figures
can be quoted as ratios to it (the same accounting as cpu_sampler.py: each component is
found by the port it listens on, so other stacks on the host are not counted).
Per-process CPU time is what the request cost, however busy the host was; only the
time a client waits depends on the other work.

  python3 cpu_per_request.py [--requests 600] [--logins 120] [--concurrency 4] [--json out.json]

Env: HAPROXY_PORT (8080), LOAD_CSV (var/jmeter/users.csv), and the ports of
cpu_sampler.py (DB_PORT, MEMCACHED_PORT, WEBAPP_PORT, ...).
"""
import argparse
import csv
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_sampler import HZ, Sampler, component_ports  # noqa: E402

KINDS = ["login", "home", "codebook", "editor", "save"]
CSRF = re.compile(r'<meta[^>]*name="csrf-token"[^>]*content="([^"]+)"')


class Client:
    def __init__(self, port, user):
        self.port, self.user = port, user
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookie = None
        self.csrf = None

    def req(self, method, path, body=None, headers=None):
        h = dict(headers or {})
        if self.cookie:
            h["Cookie"] = self.cookie
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=h)
                r = self.conn.getresponse()
                data = r.read().decode("utf-8", "replace")
                break
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt == 2:
                    raise
        for k, v in r.getheaders():
            if k.lower() == "set-cookie" and v.startswith("prutor.sid="):
                self.cookie = v.split(";")[0]
        m = CSRF.search(data)
        if m:
            self.csrf = m.group(1)
        return r.status, data

    def login(self):
        body = urllib.parse.urlencode({"username": self.user["username"], "password": self.user["password"]})
        return self.req("POST", "/accounts/login", body,
                        {"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/html"})

    def do(self, kind, n):
        if kind == "login":
            return self.login()
        if kind == "home":
            return self.req("GET", "/home", headers={"Accept": "text/html"})
        if kind == "codebook":
            return self.req("GET", "/codebook", headers={"Accept": "text/html"})
        if kind == "editor":
            return self.req("GET", f"/editor/{self.user['assignment_id']}", headers={"Accept": "text/html"})
        code = "#include <stdio.h>\n/* cpu_per_request %d */\nint main(void) { int a, b; scanf(\"%%d %%d\", &a, &b); printf(\"%%d\\n\", a + b); return 0; }\n" % n
        body = urllib.parse.urlencode({"assignment_id": self.user["assignment_id"], "branch_id": 0, "trigger": "manual", "code": code})
        return self.req("POST", "/editor/save", body, {"Content-Type": "application/x-www-form-urlencoded",
                                                       "Accept": "application/json", "X-CSRF-Token": self.csrf or ""})


BARE_SERVER = "require('http').createServer((q, s) => { s.writeHead(204); s.end(); }).listen(+process.argv[1], '127.0.0.1')"


def process_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])


def bare_node_floor(concurrency, n):
    """CPU microseconds per request of a bare Node http server, measured like the stack."""
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    proc = subprocess.Popen(["node", "-e", BARE_SERVER, str(port)])
    try:
        for _ in range(50):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        clients = [Client(port, None) for _ in range(concurrency)]
        t0 = process_ticks(proc.pid)
        per = n // concurrency
        threads = [threading.Thread(target=lambda c=c: [c.req("GET", "/") for _ in range(per)]) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(0.3)
        return round((process_ticks(proc.pid) - t0) / HZ / (per * concurrency) * 1e6)
    finally:
        proc.terminate()
        proc.wait()


def expected(kind, status, body):
    if kind == "login":
        return status == 302
    if kind == "save":
        return status == 200 and '"ok":true' in body
    return status == 200 and "csrf-token" in body


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--requests", type=int, default=600)
    ap.add_argument("--logins", type=int, default=120)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--json")
    a = ap.parse_args()
    port = int(os.environ.get("HAPROXY_PORT", "8080"))
    csv_path = os.environ.get("LOAD_CSV") or os.path.join(os.environ.get("PRUTOR_VAR", "var"), "jmeter", "users.csv")
    with open(csv_path) as f:
        users = list(csv.DictReader(f))[: a.concurrency]
    if len(users) < a.concurrency:
        sys.exit(f"need {a.concurrency} load users in {csv_path} (make load-data)")
    clients = [Client(port, u) for u in users]
    for c in clients:
        st, _ = c.login()
        c.req("GET", "/home", headers={"Accept": "text/html"})
        if st != 302 or not c.csrf:
            sys.exit(f"cannot sign in as {c.user['username']} through :{port} (status {st})")

    sampler = Sampler(0, component_ports())
    sampler.sample(0)
    results = {}
    for kind in KINDS:
        n_total = a.logins if kind == "login" else a.requests
        per = n_total // a.concurrency
        bad = []
        before = dict(sampler.ticks)
        t0 = time.monotonic()

        def run(c, k=kind, per=per, bad=bad):
            for i in range(per):
                st, body = c.do(k, i)
                if not expected(k, st, body):
                    bad.append(st)

        threads = [threading.Thread(target=run, args=(c,)) for c in clients]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
        time.sleep(0.3)  # let the last answers' CPU be accounted
        sampler.sample(wall)
        n = per * a.concurrency
        us = {comp: round((sampler.ticks.get(comp, 0) - before.get(comp, 0)) / HZ / n * 1e6)
              for comp in ("node", "mariadbd", "memcached", "haproxy")}
        us["total"] = sum(us.values())
        results[kind] = {"requests": n, "failed": len(bad), "cpu_us": us, "wall_s": round(wall, 2)}
        if kind == "login":  # the load users' sessions are new now: fetch the token again
            for c in clients:
                c.req("GET", "/home", headers={"Accept": "text/html"})

    floor = bare_node_floor(a.concurrency, a.requests)
    print(f"CPU per request through HAProxy :{port} ({a.concurrency} clients; microseconds of CPU; resolution "
          f"one clock tick per kind: +-{1e6 / HZ / a.requests:.0f} us, logins +-{1e6 / HZ / a.logins:.0f} us):")
    print(f"  {'kind':<9} {'requests':>8} {'node':>7} {'mariadbd':>9} {'memcached':>10} {'haproxy':>8} {'total':>7}  failed")
    for kind, r in results.items():
        u = r["cpu_us"]
        print(f"  {kind:<9} {r['requests']:>8} {u['node']:>7} {u['mariadbd']:>9} {u['memcached']:>10} {u['haproxy']:>8} {u['total']:>7}  {r['failed']}"
              f"   node = {u['node'] / max(floor, 1):.1f} x floor")
    print(f"  floor: a bare Node http server answering 204, same clients, same run: {floor} us per request")
    with open("/proc/loadavg") as f:
        print(f"  host load average (1 min) at the end: {f.read().split()[0]}")
    if a.json:
        json.dump({"kinds": results, "bare_node_floor_us": floor}, open(a.json, "w"), indent=1)
    return 1 if any(r["failed"] for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
