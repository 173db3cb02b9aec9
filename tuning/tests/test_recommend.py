"""The recommend rule on recorded run fixtures."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from tuninglib.recommend import Rule, decide, load_runs  # noqa: E402

RUNS = os.path.join(HERE, "fixtures", "runs")


class RecommendTest(unittest.TestCase):
    def setUp(self):
        self.runs = load_runs(RUNS, "webapp")
        self.rule = Rule("webapp")

    def test_cheapest_passing_setting(self):
        d = decide(self.runs, 100, self.rule)
        self.assertEqual(d["chosen"]["run"]["id"], "f-nw1-100")  # 1 worker is enough and cheaper

    def test_more_workers_when_the_cheap_one_fails(self):
        d = decide(self.runs, 200, self.rule)
        self.assertEqual(d["chosen"]["run"]["id"], "f-nw2-200")
        failed = [c for c in d["candidates"] if not c["passed"]]
        self.assertEqual(len(failed), 1)
        self.assertIn("login error 3.0%", failed[0]["why"])
        self.assertIn("99% line 12000 ms", failed[0]["why"])

    def test_uses_the_next_recorded_load_above(self):
        d = decide(self.runs, 150, self.rule)   # nothing at 150: the 200-user runs decide
        self.assertEqual(d["chosen"]["run"]["id"], "f-nw2-200")

    def test_cannot_hold_and_capacity(self):
        d = decide(self.runs, 300, self.rule)   # the 300-user run lost saves
        self.assertIsNone(d["chosen"])
        self.assertIn("saves lost or unacknowledged", d["candidates"][0]["why"])
        self.assertEqual(d["capacity"]["id"], "f-nw2-200")
        d = decide(self.runs, 1000, self.rule)  # nothing recorded that high
        self.assertIsNone(d["chosen"])
        self.assertEqual(d["candidates"], [])
        self.assertEqual(d["capacity"]["users"], 200)

    def test_bounds_are_parameters(self):
        d = decide(self.runs, 200, Rule("webapp", max_p99=3000))
        self.assertIsNone(d["chosen"])          # p99 4000 > 3000
        d = decide(self.runs, 200, Rule("webapp", max_p99=20000, max_login_error=5, max_error=5))
        self.assertEqual(d["chosen"]["run"]["id"], "f-nw1-200")


if __name__ == "__main__":
    unittest.main()
