"""HAProxy log analysis on a captured sample."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
from tuninglib import haplog  # noqa: E402

SAMPLE = os.path.join(HERE, "fixtures", "haproxy-sample.txt")


class HapLogTest(unittest.TestCase):
    def setUp(self):
        self.a = haplog.analyse_file(SAMPLE, limits={"webapp_maxconn": 20, "engine_maxconn": 2,
                                                     "listen_maxconn": 1000})

    def test_counts(self):
        a = self.a
        self.assertEqual(a["requests"], 18)
        self.assertEqual(a["unparsed_lines"], 1)  # the [WARNING] line
        self.assertEqual(a["states"], {"--": 9, "sQ": 4, "sH": 1, "SC": 1, "cD": 1, "CQ": 1, "cR": 1})
        self.assertEqual(a["backends"]["webapp"]["requests"], 11)
        self.assertEqual(a["backends"]["engine"]["states"]["sQ"], 2)
        self.assertEqual(a["backends"]["webapp"]["status"]["5xx"], 4)
        self.assertEqual(a["backends"]["webapp"]["no_server"], 2)

    def test_timers(self):
        w = self.a["backends"]["webapp"]
        self.assertEqual(w["Tw"]["max"], 30001)       # the queue timeout
        self.assertEqual(w["max_bq"], 25)
        self.assertEqual(w["max_srv_conns"], 20)
        self.assertEqual(self.a["backends"]["engine"]["Tw"]["p99"], 5001)
        # -1 (never connected) is not a connect time
        self.assertEqual(w["Tc"]["n"], 8)

    def test_findings_explain_states_and_knobs(self):
        f = {x["state"]: x for x in self.a["findings"]}
        self.assertIn("timeout queue", f["sQ"]["meaning"])
        self.assertIn("WEBAPP_MAXCONN", f["sQ"]["knob"])
        self.assertIn("timeout server", f["sH"]["meaning"])
        self.assertIn("WEB_WORKERS", f["SC"]["knob"])
        self.assertIn("HAPROXY_TIMEOUT_CLIENT", f["cD"]["knob"])
        self.assertEqual(f["sQ"]["backends"], "webapp 2, engine 2")
        self.assertIn("sc=maxconn", f)  # webapp ran at its server maxconn with a queue
        self.assertNotIn("fc=max", f)   # listen maxconn 1000 was never reached
        text = haplog.format_analysis(self.a)
        self.assertIn("sQ x4", text)

    def test_thesis_lines_without_client_prefix(self):
        # the thesis' figures 3.24/3.25 (syslog prefix stripped): no client address
        lines = ['www web-backend/<NOSRV> 0/5000/-1/-1/5000 503 213 - - sQ-- 99/99/99/0/0 0/23 "POST /accounts/login HTTP/1.1"',
                 'www web-backend/2e504751ef04 0/0/0/28566/78566 503 1874 - - sD-- 399/399/399/399/0 0/0 "GET /home HTTP/1.1"']
        a = haplog.analyse_lines(lines)
        self.assertEqual(a["states"], {"sQ": 1, "sD": 1})
        self.assertEqual(a["backends"]["web-backend"]["paths"], {"POST /accounts/login": 1, "GET /home": 1})

    def test_offset_and_unknown_state(self):
        size = os.path.getsize(SAMPLE)
        self.assertEqual(haplog.analyse_file(SAMPLE, offset=size)["requests"], 0)
        self.assertEqual(haplog.analyse_file(SAMPLE, offset=size + 10)["requests"], 18)  # rotated: from the start
        self.assertIn("client timeout", haplog.explain("cH")[0])


if __name__ == "__main__":
    unittest.main()
