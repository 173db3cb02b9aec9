"""Against the running stack (`make up`): apply during a stream of requests (zero failures),
and a smoke-sized sweep that produces the report with plots.

Skipped when the stack is not healthy, unless TUNING_REQUIRE_STACK=1 (then they fail).
TUNING_SKIP_SWEEP=1 skips the sweep (it takes a few minutes)."""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from tuninglib import profile as P  # noqa: E402
from tuninglib.live import Stack, apply_profile  # noqa: E402

TOOL = os.path.join(HERE, "..", "tuning")
STACK = Stack()
UP = STACK.healthy()
REQUIRE = os.environ.get("TUNING_REQUIRE_STACK") == "1"


def need_stack(t):
    if UP or REQUIRE:
        return t
    return unittest.skip("the stack is not running (make up); TUNING_REQUIRE_STACK=1 makes this a failure")(t)


class Stream:
    """Threads sending requests over keep-alive connections (like JMeter and browsers) through HAProxy to
    the webapp and the engine; every answer other than the expected status is a failure."""

    # the login page (webapp) on most threads, the engine's health on one: the engine admits only
    # ENGINE_MAXCONN requests at once, and /healthz aggregates every component (a test elsewhere
    # stopping MongoDB would fail it for reasons unrelated to a reload)
    PATHS = [("/accounts/login", 200)] * 5 + [("/engine/healthz", 200)]

    def __init__(self, threads=6):
        self.port = int(STACK.e("HAPROXY_PORT", "8080"))
        self.ok, self.fail, self.retries, self.errors = 0, 0, 0, []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.ths = [threading.Thread(target=self.loop, args=(i,), daemon=True) for i in range(threads)]

    def loop(self, i):
        conn, reused = None, False
        path, want = self.PATHS[i % len(self.PATHS)]
        while not self.stop.is_set():
            retried = False
            while True:
                try:
                    if conn is None:
                        conn, reused = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30), False
                    conn.request("GET", path, headers={"Accept": "text/html"})
                    r = conn.getresponse()
                    r.read()
                    good = r.status == want
                    reused = True
                    if r.getheader("Connection", "").lower() == "close":
                        conn.close()
                        conn = None
                    msg = f"{path} -> {r.status}"
                except (OSError, http.client.HTTPException) as e:
                    closed_idle = reused and isinstance(e, (http.client.RemoteDisconnected, ConnectionResetError))
                    if conn:
                        conn.close()
                    conn = None
                    # A keep-alive connection the server closed as the request went out: like browsers,
                    # retry a GET once on a new connection (RFC 9112 9.3.1); any other error counts.
                    if closed_idle and not retried:
                        retried = True
                        with self.lock:
                            self.retries += 1
                        continue
                    good, msg = False, f"{path} -> {type(e).__name__}: {e}"
                break
            with self.lock:
                if good:
                    self.ok += 1
                else:
                    self.fail += 1
                    self.errors.append(msg)
            time.sleep(0.01)

    def __enter__(self):
        for t in self.ths:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.ths:
            t.join(35)


@need_stack
class ApplyLiveTest(unittest.TestCase):
    def test_apply_during_a_stream_of_requests(self):
        self.assertTrue(STACK.haproxy_master_uses_tuning_cfg(),
                        "haproxy was started before haproxy/run.sh read var/tuning/haproxy-tuning.cfg:"
                        " bin/prutor restart haproxy")
        self.assertTrue(STACK.webapp_hook_present(), "webapp was started before server.js had the SIGHUP reload:"
                                              " bin/prutor restart webapp")
        before = STACK.live()
        try:
            with open(STACK.active_json) as f:
                prev = json.load(f)
        except (OSError, ValueError):
            prev = None
        cores = P.ncores()
        a = P.resolve({"WEB_WORKERS": "1", "WEBAPP_MAXCONN": "300", "HAPROXY_LISTEN_MAXCONN": "900",
                       "HAPROXY_MAXCONN": "2000", "ENGINE_MAX_WORKERS": "12", "ENGINE_SERVER_LIMIT": "16",
                       "WEBAPP_TIMEOUT_QUEUE": "20s", "DB_MAX_CONNECTIONS": str(before["DB_MAX_CONNECTIONS"][0] + 1)},
                      name="test-a")
        b = P.resolve({"WEB_WORKERS": str(cores + 1), "WEBAPP_MAXCONN": "700", "HAPROXY_LISTEN_MAXCONN": "1500",
                       "HAPROXY_MAXCONN": "3000", "ENGINE_MAX_WORKERS": "14", "ENGINE_SERVER_LIMIT": "16"},
                      name="test-b")
        for p in (a, b):
            self.assertEqual(P.errors(P.validate(p)), [])
        if prev:
            restore = P.resolve({k: P.BY_ENV[k].fmt(v) for k, v in prev["values"].items()},
                                name=prev.get("name", "restore"))
        else:
            restore = P.load(P.find_profile("default", STACK.root))
        origin = prev["origin"] if prev else "tuning/profiles/default.env"
        restored = False
        try:
            self._stream(a, b, restore, origin)
            restored = True
        finally:
            if not restored:  # leave the stack as it was even when an assertion failed
                apply_profile(STACK, restore, origin, log=lambda *x: None)

    def _stream(self, a, b, restore, origin):
        with Stream() as s:
            time.sleep(1)
            for p in (a, b):
                res = apply_profile(STACK, p, f"tests/test_live.py {p.name}", log=lambda *x: None)
                self.assertEqual(res.failed, [], res.rows)
                lv = STACK.live()
                for env in ("WEB_WORKERS", "WEBAPP_MAXCONN", "HAPROXY_LISTEN_MAXCONN", "HAPROXY_MAXCONN",
                            "ENGINE_MAX_WORKERS", "WEBAPP_TIMEOUT_QUEUE"):
                    self.assertEqual(lv[env][0], p[env], f"{p.name}: live {env} {lv[env]} != {p[env]}")
                stats = STACK.haproxy_stats()
                self.assertEqual(int(stats[("webapp", "webapp1")]["slim"]), p["WEBAPP_MAXCONN"])
                time.sleep(2)
            # back to what ran before (the active profile, else bin/prutor's defaults)
            res = apply_profile(STACK, restore, origin, log=lambda *x: None)
            self.assertEqual(res.failed, [])
            time.sleep(1)
        print(f"\n  stream during 3 applies: {s.ok} requests answered, {s.fail} failed,"
              f" {s.retries} GETs retried once on a keep-alive connection closed by a reload"
              + (f": {s.errors[:5]}" if s.errors else ""), file=sys.stderr)
        self.assertGreater(s.ok, 100)
        self.assertEqual(s.fail, 0, s.errors[:10])

    def test_show_reads_live_values(self):
        r = subprocess.run([TOOL, "show"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        for s in ("haproxy stats (webapp1 slim)", "SHOW VARIABLES", "webapp cluster workers", "usage now:"):
            self.assertIn(s, r.stdout)


@need_stack
@unittest.skipIf(os.environ.get("TUNING_SKIP_SWEEP") == "1", "TUNING_SKIP_SWEEP=1")
class SmokeSweepTest(unittest.TestCase):
    def test_two_settings_two_loads_report_and_recommend(self):
        tmp = tempfile.mkdtemp(prefix="tuning-test-")
        env = {**os.environ, "TUNING_RUNS_DIR": os.path.join(tmp, "runs")}
        try:
            r = subprocess.run([TOOL, "sweep", "--plan", "webapp", "--users", "2,4", "--param", "node_workers=1,2",
                                "--iterations", "1", "--think", "200", "--cooldown", "1", "--tag", "smoke"],
                               capture_output=True, text=True, env=env, timeout=1500)
            self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
            runs = [f for f in os.listdir(os.path.join(tmp, "runs")) if f.endswith(".json")]
            self.assertEqual(len(runs), 4, r.stdout)
            for fn in runs:
                with open(os.path.join(tmp, "runs", fn)) as f:
                    rec = json.load(f)
                self.assertGreater(rec["total"]["samples"], 0)
                self.assertIn("states", rec["haproxy"])
                self.assertTrue(rec["resources"]["memory"])
                self.assertTrue(rec["cpu"])
            self.assertIn("left ~", r.stderr)  # the progress line with its estimate
            out = os.path.join(tmp, "report")
            r = subprocess.run([TOOL, "report", "--out", out], capture_output=True, text=True, env=env, timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            for fn in ("report.html", "report.md", "plots/webapp-error.png", "plots/webapp-response.png"):
                self.assertTrue(os.path.getsize(os.path.join(out, fn)) > 500, fn)
            with open(os.path.join(out, "report.html")) as f:
                self.assertIn("data:image/png;base64,", f.read())
            r = subprocess.run([TOOL, "recommend", "--users", "4", "--plan", "webapp", "--no-run",
                                "--write", os.path.join(tmp, "rec.env")], capture_output=True, text=True, env=env)
            self.assertIn(r.returncode, (0, 3), r.stdout + r.stderr)
            self.assertIn("rule:", r.stdout)
            if r.returncode == 0:
                self.assertIn("node_workers=1", r.stdout.split("recommended for")[1])  # the cheaper one
                self.assertEqual(subprocess.run([TOOL, "validate", os.path.join(tmp, "rec.env")],
                                                capture_output=True).returncode, 0)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
