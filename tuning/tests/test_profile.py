"""Profile parsing and validation: valid profiles pass, invalid ones are refused with the reason."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from tuninglib import profile as P  # noqa: E402

PROFILES = os.path.join(HERE, "..", "profiles")
FIX = os.path.join(HERE, "fixtures")
TOOL = os.path.join(HERE, "..", "tuning")


def errors_of(path, **kw):
    p = P.load(path, cores=kw.pop("cores", 2))
    return P.errors(P.validate(p, mem_mb=kw.pop("mem_mb", 24000)))


class ProfileTest(unittest.TestCase):
    def test_shipped_profiles_are_valid(self):
        for n in sorted(os.listdir(PROFILES)):
            with self.subTest(profile=n):
                self.assertEqual(errors_of(os.path.join(PROFILES, n)), [])

    def test_defaults_match_bin_prutor(self):
        p = P.resolve({}, cores=2)
        self.assertEqual(p["WEB_WORKERS"], 2)
        self.assertEqual(p["ENGINE_SLOTS"], 2)
        self.assertEqual(p["ENGINE_MAXCONN"], 4)          # = 2 x slots (a cached compile needs no slot)
        self.assertEqual(p.display("ENGINE_TIMEOUT_QUEUE"), "3s")
        self.assertEqual(p["ENGINE_MAXQUEUE"], 64)        # = slots x 32
        self.assertEqual(p["ENGINE_MAX_WORKERS"], 16)     # = 8 x cores (engine/render-config.sh)
        self.assertEqual(p["ENGINE_SERVER_LIMIT"], 16)
        self.assertEqual(p["HAPROXY_LISTEN_MAXCONN"], 6000)
        self.assertEqual(p["WEBAPP_TIMEOUT_QUEUE"], 30000)
        self.assertEqual(p["DB_BUFFER_POOL_SIZE"], 256 << 20)
        self.assertEqual(p.display("HAPROXY_TIMEOUT_CONNECT"), "5s")

    def test_units_and_aliases(self):
        p = P.resolve({"node_workers": "3", "timeout_queue": "1500ms", "innodb_buffer_pool_size": "1G"}, cores=2)
        self.assertEqual(p["WEB_WORKERS"], 3)
        self.assertEqual(p["WEBAPP_TIMEOUT_QUEUE"], 1500)
        self.assertEqual(p["DB_BUFFER_POOL_SIZE"], 1 << 30)
        self.assertIn("DB_BUFFER_POOL_SIZE=1G", p.env_lines())

    def test_env_file_syntax(self):
        raw = P.parse_env_text('# c\nexport WEB_WORKERS="4"\nDB_POOL_SIZE=5 # pool\n\n')
        self.assertEqual(raw, {"WEB_WORKERS": "4", "DB_POOL_SIZE": "5"})

    def test_workers_times_pool_above_max_connections(self):
        e = errors_of(os.path.join(FIX, "invalid-pool.env"))
        self.assertEqual(len(e), 1, e)
        self.assertIn("8 x 20 + 16 + 10 = 186 is above mysql_max_connections = 100", e[0])

    def test_max_request_workers_above_server_limit(self):
        e = errors_of(os.path.join(FIX, "invalid-serverlimit.env"))
        self.assertTrue(any("above apache_server_limit (ServerLimit) = 20" in m for m in e), e)

    def test_listen_below_sum_of_server_maxconn(self):
        e = errors_of(os.path.join(FIX, "invalid-listen.env"))
        self.assertTrue(any("below the sum of server maxconn (webapp 3000 + engine 4 = 3004)" in m for m in e), e)

    def test_engine_maxconn_far_above_slots(self):
        e = errors_of(os.path.join(FIX, "invalid-engine.env"))
        self.assertTrue(any("engine_maxconn = 50 is far above engine_slots = 2" in m for m in e), e)

    def test_syntax_errors_listed_together(self):
        with self.assertRaises(P.ProfileError) as cm:
            P.load(os.path.join(FIX, "invalid-syntax.env"))
        msg = str(cm.exception)
        self.assertIn("WEB_WORKERS (node_workers): must be a whole number", msg)
        self.assertIn("unknown setting 'NODE_WORKERZ'", msg)
        self.assertIn("unknown setting 'HAPROXY_TIMEOUT_QUEUE'", msg)

    def test_memory_above_host(self):
        p = P.resolve({"ENGINE_MAX_WORKERS": "2000", "ENGINE_SERVER_LIMIT": "2000", "DB_MAX_CONNECTIONS": "3000"},
                      cores=2)
        e = P.errors(P.validate(p, mem_mb=8000))
        self.assertTrue(any("MB at its limits" in m and "8000 MB" in m for m in e), e)

    def test_cli_refuses_invalid_with_reason(self):
        r = subprocess.run([TOOL, "apply", os.path.join(FIX, "invalid-pool.env")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("is above mysql_max_connections", r.stderr)
        self.assertIn("refused:", r.stderr)
        r = subprocess.run([TOOL, "validate", os.path.join(FIX, "invalid-serverlimit.env")], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("REFUSED", r.stdout)


if __name__ == "__main__":
    unittest.main()
