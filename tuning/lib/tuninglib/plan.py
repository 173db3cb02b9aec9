"""Capacity planner: cores and hosts for an exam of N students (`tuning plan --students N`).

A model, not a measurement: the per-request CPU costs measured on this host (README,
Capacity: "CPU per request kind", and the engine's jobs/s per core against the gcc
floor) times the request rates of the thesis' workload, divided by a target
utilisation that leaves room for bursts. Every figure it uses is an Assumption, printed
with the plan and overridable on the command line.
"""
import math
from dataclasses import dataclass, fields

# CPU per request measured here (microseconds, the README's "CPU per request kind" run of
# 2026-11-23, 4 keep-alive clients through HAProxy; taken under contention, so high).
WEBAPP_MIX = {  # kind: (requests per iteration of the thesis' plan, node, mariadbd, memcached, haproxy)
    "home": (3, 1750, 450, 50, 200),
    "codebook": (1, 1600, 275, 50, 213),
    "editor": (2, 2525, 775, 62, 275),
    "save": (4, 1675, 688, 62, 225),
}
LOGIN_US = (71000, 750, 625, 500)  # node (bcrypt cost 10), mariadbd, memcached, haproxy


def _mix_us(column):
    n = sum(v[0] for v in WEBAPP_MIX.values())
    return sum(v[0] * v[column] for v in WEBAPP_MIX.values()) / n


@dataclass
class Assumptions:
    # webapp: the thesis' table 3.19 (3,000 users, 498 requests/s, logins over ~141 s)
    page_requests_per_student_s: float = 498 / 3000
    login_window_s: float = 141.0
    node_ms_per_request: float = round(_mix_us(1) / 1000, 3)
    db_ms_per_request: float = round((_mix_us(2) + _mix_us(3)) / 1000, 3)
    haproxy_ms_per_request: float = round(_mix_us(4) / 1000, 3)
    login_node_ms: float = LOGIN_US[0] / 1000
    login_db_ms: float = (LOGIN_US[1] + LOGIN_US[2]) / 1000
    # engine: the thesis' engine run (1,000 users, 52.5 requests/s: compile, execute,
    # evaluate in turn); CPU per job from the engine through the Jobe API here: 13.6
    # fresh compile+run jobs/s on one core, 61.5 cached runs/s per core (README, BRIEF 7)
    engine_requests_per_student_s: float = 52.5 / 1000
    compile_ms: float = round(1000 / 13.6, 1)
    run_ms: float = round(1000 / 61.5, 1)
    runs_per_evaluate: int = 4
    # every tier sized to run at this share of its cores at the peak (bursts, GC, checks)
    target_utilisation: float = 0.7

    @classmethod
    def names(cls):
        return [f.name for f in fields(cls)]


def plan(students, host_cores=8, a=None):
    """The cores and hosts per tier for `students` at once; a dict (see format_plan)."""
    a = a or Assumptions()
    if students < 1:
        raise ValueError("students must be at least 1")
    if host_cores < 2:
        raise ValueError("host cores must be at least 2")
    req_s = students * a.page_requests_per_student_s
    login_s = students / a.login_window_s
    eng_s = students * a.engine_requests_per_student_s
    # one compile, one execute (one run) and one evaluate (runs_per_evaluate runs) in turn;
    # the execute and evaluate find the compile's binary (HAProxy keeps a student on one engine)
    engine_ms = (a.compile_ms + a.run_ms + a.runs_per_evaluate * a.run_ms) / 3
    busy = {
        "webapp": req_s * a.node_ms_per_request / 1000 + login_s * a.login_node_ms / 1000,
        "engine": eng_s * engine_ms / 1000,
        "data": req_s * a.db_ms_per_request / 1000 + login_s * a.login_db_ms / 1000,
        "haproxy": (req_s + login_s + eng_s) * a.haproxy_ms_per_request / 1000,
    }
    tiers = {}
    for tier, b in busy.items():
        cores = max(1, math.ceil(b / a.target_utilisation))
        tiers[tier] = {"busy_cores": round(b, 2), "cores": cores, "hosts": math.ceil(cores / host_cores)}
    e = tiers["engine"]
    e["slots_per_host"] = min(host_cores, e["cores"])
    w = tiers["webapp"]
    w["workers_per_host"] = min(host_cores, w["cores"])
    return {
        "students": students, "host_cores": host_cores,
        "rates": {"page_requests_s": round(req_s, 1), "logins_s": round(login_s, 1), "engine_requests_s": round(eng_s, 1)},
        "tiers": tiers,
        "hosts_total": sum(t["hosts"] for t in tiers.values()),
        "assumptions": {n: getattr(a, n) for n in Assumptions.names()},
    }


def format_plan(p):
    t = p["tiers"]
    r = p["rates"]
    out = [
        f"Plan for {p['students']} students at once, hosts of {p['host_cores']} cores",
        f"  peak rates: {r['page_requests_s']} page requests/s, {r['logins_s']} sign-ins/s, {r['engine_requests_s']} engine requests/s",
        "",
        "| tier | busy cores | cores (at target) | hosts | per host |",
        "| --- | --- | --- | --- | --- |",
        f"| engine (gcc) | {t['engine']['busy_cores']} | {t['engine']['cores']} | {t['engine']['hosts']} | ENGINE_SLOTS={t['engine']['slots_per_host']}, ENGINE_MAXCONN={2 * t['engine']['slots_per_host']} |",
        f"| webapp (node) | {t['webapp']['busy_cores']} | {t['webapp']['cores']} | {t['webapp']['hosts']} | WEB_WORKERS={t['webapp']['workers_per_host']} |",
        f"| MariaDB + memcached | {t['data']['busy_cores']} | {t['data']['cores']} | {t['data']['hosts']} | |",
        f"| HAProxy | {t['haproxy']['busy_cores']} | {t['haproxy']['cores']} | {t['haproxy']['hosts']} | one HAProxy: admission control counted in one place |",
        "",
        f"  hosts in all: {p['hosts_total']} (HAProxy's and the data tier's may be smaller hosts)",
        "",
        "Assumptions (override with --set NAME=VALUE):",
    ]
    out += [f"  {k} = {v}" for k, v in p["assumptions"].items()]
    out.append("  The CPU costs were measured on this 2-core host under contention (README, Capacity), so")
    out.append("  they overstate a quiet host's; measure yours with jmeter-plans/bench/cpu_per_request.py.")
    return "\n".join(out)
