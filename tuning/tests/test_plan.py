"""The capacity planner (`tuning plan`): arithmetic, overrides and refusals."""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from tuninglib.plan import Assumptions, plan  # noqa: E402

TOOL = os.path.join(HERE, "..", "tuning")


class PlanTest(unittest.TestCase):
    def test_engine_cores_from_the_per_job_costs(self):
        a = Assumptions()
        p = plan(5000, 8, a)
        per_request_ms = (a.compile_ms + a.run_ms + a.runs_per_evaluate * a.run_ms) / 3
        busy = 5000 * a.engine_requests_per_student_s * per_request_ms / 1000
        self.assertAlmostEqual(p["tiers"]["engine"]["busy_cores"], round(busy, 2))
        self.assertEqual(p["tiers"]["engine"]["cores"], -(-busy // a.target_utilisation))
        self.assertEqual(p["tiers"]["engine"]["hosts"], -(-p["tiers"]["engine"]["cores"] // 8))

    def test_four_times_the_students_about_four_times_the_cores(self):
        small, big = plan(5000), plan(20000)
        for tier in ("engine", "webapp"):
            ratio = big["tiers"][tier]["busy_cores"] / small["tiers"][tier]["busy_cores"]
            self.assertAlmostEqual(ratio, 4.0, places=1)
        self.assertGreater(big["hosts_total"], small["hosts_total"])

    def test_bigger_hosts_fewer_hosts(self):
        self.assertLess(plan(20000, 32)["tiers"]["engine"]["hosts"], plan(20000, 8)["tiers"]["engine"]["hosts"])

    def test_refuses_nonsense(self):
        with self.assertRaises(ValueError):
            plan(0)
        with self.assertRaises(ValueError):
            plan(100, 1)

    def test_cli_overrides_and_refusals(self):
        out = subprocess.run([sys.executable, TOOL, "plan", "--students", "5000", "--set", "compile_ms=147", "--json"],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn('"compile_ms": 147.0', out)
        bad = subprocess.run([sys.executable, TOOL, "plan", "--students", "5000", "--set", "bogus=1"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("unknown assumption", bad.stderr)
        table = subprocess.run([sys.executable, TOOL, "plan", "--students", "20000"], capture_output=True, text=True, check=True).stdout
        self.assertIn("| engine (gcc) |", table)


if __name__ == "__main__":
    unittest.main()
