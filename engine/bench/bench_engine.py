#!/usr/bin/env python3
"""Engine throughput next to the physical floor, in one run (a benchmark, not a test).

The floor: `gcc <the C environment's flags> hello.c && ./prog` in a fresh temporary
directory per job, no server, at concurrency 1 and 2; for C++ the same with g++ and the cpp
environment's flags on a program using <iostream>, <vector> and <algorithm>; for Java
(LANGS=c,cpp,java, the default), Debian's `javac Main.java && java <the java environment's run flags> Main`. Then the engine through HAProxy
as students use it (POST /execute with a session and CSRF token, one demo student per
concurrent client, since a student may have one engine request in flight):
  fresh  - every request carries new source (a counter in a comment): compile + run;
  cached - the same source every time: the binary comes from the compile cache, so
           only the run (and the request's two queries) is left.
Prints jobs/s for each and the ratio to the floor at the same concurrency. Each step's
SECONDS are split into ROUNDS short rounds taken in turn (floor, fresh, cached, floor, ...),
so that a drift of the machine's speed during the run (another tenant, a background job)
weighs on the floor and the engine alike instead of on whichever ran at the time.

  make bench-engine [SECONDS=10] [ROUNDS=5] [LANGS=c,cpp,java] [STUDENTS=student01,student02] [PASSWORD=prutor-demo]
"""
import concurrent.futures as cf
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HOST = os.environ.get("BENCH_HOST", "127.0.0.1")
PORT = int(os.environ.get("HAPROXY_PORT", "8080"))
# make passes SECONDS on as SECONDS_PER_STEP: bash, through which it runs this, treats an
# inherited SECONDS as its own clock and hands it on grown by the seconds it has run
SECONDS = float(os.environ.get("SECONDS_PER_STEP", "10"))
ROUNDS = max(1, int(os.environ.get("ROUNDS", "5")))
STUDENTS = os.environ.get("STUDENTS", "student01,student02").split(",")
PASSWORD = os.environ.get("PASSWORD", "prutor-demo")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HELLO = '#include <stdio.h>\nint main(void){puts("hello");return 0;}\n'
CPP_HELLO = ('#include <iostream>\n#include <vector>\n#include <algorithm>\n'
             "int main() {\n    std::vector<char> w{'o', 'l', 'l', 'e', 'h'};\n"
             '    std::reverse(w.begin(), w.end());\n'
             '    for (char c : w) std::cout << c;\n    std::cout << "\\n";\n}\n')
JAVA_HELLO = 'public class Main {\n    public static void main(String[] a) {\n        System.out.println("hello");\n    }\n}\n'
LANGS = os.environ.get("LANGS", "c,cpp,java").split(",")


def c_flags(slug="c", source="hello.c"):
    """The C (or C++) environment's compile line as plain gcc (g++) runs it: the floor."""
    with open(os.path.join(ROOT, "nosql", "environments.json")) as f:
        env = next(e for e in json.load(f) if e["slug"] == slug)
    words = {"{compileargs}": env.get("compile_args", []), "{linkargs}": env.get("link_args", [])}
    argv = []
    for a in env["compile"]:
        argv += words[a] if a in words else [a.replace("{binary}", "prog").replace("{source}", source)]
    return argv


def java_flags():
    """The Java environment's JVM flags for a run (its heap and stack at the default 256 MB)."""
    with open(os.path.join(ROOT, "nosql", "environments.json")) as f:
        env = next(e for e in json.load(f) if e["slug"] == "java")
    sizes = {"{heap_mb}": "256", "{stack_mb}": "8"}
    flags = [a for a in env["run"][1:] if a not in ("{interpreterargs}", "-jar", "{binary}")]
    return [re.sub(r"\{\w+\}", lambda m: sizes[m.group(0)], a) for a in flags]


def java_floor_job(flags):
    d = tempfile.mkdtemp(prefix="prutor-floor-")
    try:
        with open(os.path.join(d, "Main.java"), "w") as f:
            f.write(JAVA_HELLO)
        subprocess.run(["javac", "Main.java"], cwd=d, check=True)
        out = subprocess.run(["java", *flags, "-cp", ".", "Main"], cwd=d, check=True, capture_output=True).stdout
        assert out == b"hello\n"
    finally:
        shutil.rmtree(d)


def floor_job(flags, source="hello.c", code=HELLO):
    d = tempfile.mkdtemp(prefix="prutor-floor-")
    try:
        with open(os.path.join(d, source), "w") as f:
            f.write(code)
        subprocess.run(flags, cwd=d, check=True)
        out = subprocess.run(["./prog"], cwd=d, check=True, capture_output=True).stdout
        assert out == b"hello\n"
    finally:
        shutil.rmtree(d)


def measure(job, concurrency, seconds):
    """Runs job() in `concurrency` loops for `seconds`; returns (jobs done, seconds taken, failures)."""
    done, failed = [0], [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def loop(i):
        n = 0
        while time.monotonic() < stop:
            try:
                job(i, n)
                with lock:
                    done[0] += 1
            except Exception as e:  # noqa: BLE001 - counted and shown once
                with lock:
                    failed[0] += 1
                    if failed[0] == 1:
                        print(f"    first failure: {e}", file=sys.stderr)
            n += 1

    t0 = time.monotonic()
    with cf.ThreadPoolExecutor(concurrency) as ex:
        list(ex.map(loop, range(concurrency)))
    return done[0], time.monotonic() - t0, failed[0]


class Student:
    """One signed-in student with a keep-alive connection through HAProxy."""

    def __init__(self, username):
        self.conn = http.client.HTTPConnection(HOST, PORT, timeout=60)
        body = urllib.parse.urlencode({"username": username, "password": PASSWORD})
        self.conn.request("POST", "/accounts/login", body, {"Content-Type": "application/x-www-form-urlencoded"})
        r = self.conn.getresponse()
        r.read()
        m = re.search(r"prutor\.sid=([^;]+)", r.getheader("Set-Cookie") or "")
        if r.status != 302 or not m:
            raise SystemExit(f"bench-engine: cannot sign in as {username} (HTTP {r.status}); is the demo course seeded?")
        self.cookie = "prutor.sid=" + m.group(1)
        self.conn.request("GET", "/home", headers={"Cookie": self.cookie})
        page = self.conn.getresponse().read().decode()
        self.csrf = re.search(r'csrf-token" content="([^"]+)"', page).group(1)
        self.aid = int(re.search(r'href="/editor/(\d+)"', page).group(1))

    def execute(self, code, env="c"):
        body = json.dumps({"assignment_id": self.aid, "code": code, "input": "", "env": env})
        headers = {"Cookie": self.cookie, "X-CSRF-Token": self.csrf, "Content-Type": "application/json"}
        try:
            self.conn.request("POST", "/execute", body, headers)
            r = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            # the keep-alive connection was closed while idle: once more on a new one, as browsers do
            self.conn.close()
            self.conn.request("POST", "/execute", body, headers)
            r = self.conn.getresponse()
        try:
            data = r.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()
            raise
        if r.status != 200:
            raise RuntimeError(f"HTTP {r.status}: {data[:200]!r}")
        res = json.loads(data)
        if res.get("stdout") != "hello\n":
            raise RuntimeError(f"unexpected answer {res}")
        return res


def main():
    flags = c_flags()
    cppflags = c_flags("cpp", "hello.cpp")
    jflags = java_flags()
    print(f"bench-engine: {SECONDS:g} s per step in {ROUNDS} interleaved rounds; floor = {' '.join(flags)} && ./prog (fresh dir per job)")
    if "cpp" in LANGS:
        print(f"  c++ floor = {' '.join(cppflags)} && ./prog (fresh dir per job)")
    if "java" in LANGS:
        print(f"  java floor = javac Main.java && java {' '.join(jflags)} Main (fresh dir per job)")
    students = [Student(u) for u in STUDENTS[:2]]
    run_tag = f"{os.getpid()}-{int(time.time())}"
    langs = {
        "c": (HELLO, "/* ", " */", lambda: floor_job(flags)),
        "cpp": (CPP_HELLO, "// ", "", lambda: floor_job(cppflags, "hello.cpp", CPP_HELLO)),
        "java": (JAVA_HELLO, "// ", "", lambda: java_floor_job(jflags)),
    }
    rows = []
    for lang in LANGS:
        hello, open_c, close_c, floor = langs[lang]
        for s in students:  # warm the cached binary
            s.execute(hello, lang)
        for c in (1, 2):
            done, took, fails = {}, {}, 0
            for r in range(ROUNDS):
                steps = {
                    "floor": lambda i, n: floor(),
                    "fresh": lambda i, n, r=r: students[i].execute(hello + f"{open_c}{run_tag} {c} {r} {i} {n}{close_c}\n", lang),
                    "cached": lambda i, n: students[i].execute(hello, lang),
                }
                for kind, job in steps.items():
                    n, t, f = measure(job, c, SECONDS / ROUNDS)
                    done[kind] = done.get(kind, 0) + n
                    took[kind] = took.get(kind, 0.0) + t
                    fails += f
            rate = {kind: done[kind] / took[kind] for kind in done}
            rows.append((lang, c, rate["floor"], rate["fresh"], rate["cached"], fails))
    print()
    print(f"{'language':>8}  {'concurrency':>11}  {'floor jobs/s':>12}  {'fresh jobs/s':>12}  {'fresh/floor':>11}  {'cached jobs/s':>13}  {'cached/floor':>12}  failures")
    for lang, c, floor, fresh, cached, fails in rows:
        print(f"{lang:>8}  {c:>11}  {floor:>12.1f}  {fresh:>12.1f}  {fresh / floor:>11.2f}  {cached:>13.1f}  {cached / floor:>12.2f}  {fails}")
    load = os.getloadavg()
    print(f"\nload average during the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    return 1 if any(r[5] for r in rows) else 0

if __name__ == "__main__":
    sys.exit(main())
