"""Recommend: the cheapest recorded setting that holds N users on this host."""
import glob
import json
import os
import sys

from . import profile as P

DEFAULT_P99 = {"webapp": 10000, "engine": 30000, "combined": 30000}


def load_runs(runs_dir, plan=None, tag=None):
    runs = []
    for fn in sorted(glob.glob(os.path.join(runs_dir, "*.json"))):
        try:
            with open(fn) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        if "plan" not in r or "users" not in r:
            continue
        if plan and r["plan"] != plan:
            continue
        if tag is not None and r.get("tag", "") != tag:
            continue
        runs.append(r)
    return runs


class Rule:
    def __init__(self, plan, max_p99=None, max_login_error=0.0, max_error=1.0):
        self.plan = plan
        self.max_p99 = max_p99 if max_p99 is not None else DEFAULT_P99[plan]
        self.max_login_error = max_login_error
        self.max_error = max_error

    def describe(self):
        return (f"the cheapest setting (least memory at its limits, then fewest processes, then lowest 99% line)"
                f" whose run at the smallest recorded load >= the target had login error <= {self.max_login_error}%,"
                f" error of all requests <= {self.max_error}%, 99% line <= {self.max_p99} ms and no save lost")

    def check(self, r):
        """(passed, reasons why not)."""
        why = []
        if r.get("error"):
            return False, [r["error"]]
        t = r.get("total") or {}
        le = r.get("login_error_pct")
        if le is None and self.plan != "engine":
            why.append("no login samples")
        elif le is not None and le > self.max_login_error:
            why.append(f"login error {le}%")
        if (t.get("error_pct") or 0) > self.max_error:
            why.append(f"error {t.get('error_pct')}%")
        if (t.get("p99_ms") or 0) > self.max_p99:
            why.append(f"99% line {t.get('p99_ms')} ms")
        nl = r.get("nothing_lost")
        if nl is not None and nl.get("ok") is False:
            why.append("saves lost or unacknowledged")
        if not t.get("samples"):
            why.append("no samples")
        return not why, why


def setting_key(r):
    return json.dumps(r.get("profile", {}), sort_keys=True)


def setting_label(r):
    return ", ".join(f"{k}={v}" for k, v in sorted((r.get("params") or {}).items())) or "base profile"


def cost(r):
    prof = r.get("profile") or {}
    try:
        p = P.Profile({k.env: prof[k.env] for k in P.KNOBS}, set(), cores=r.get("host", {}).get("cores"))
        mem = sum(P.estimate_memory_mb(p).values())
    except KeyError:
        mem = 0
    procs = prof.get("WEB_WORKERS", 0) + prof.get("ENGINE_MAX_WORKERS", 0)
    return (mem, procs, (r.get("total") or {}).get("p99_ms") or 0)


def decide(runs, users, rule):
    """-> dict: chosen run (or None), candidates [(label, run at >= users, passed, why)], capacity."""
    by_setting = {}
    for r in runs:
        by_setting.setdefault(setting_key(r), []).append(r)
    cands = []
    for key, rs in by_setting.items():
        at = sorted((r for r in rs if r["users"] >= users), key=lambda r: (r["users"], r.get("finished", "")))
        if not at:
            continue
        first = [r for r in at if r["users"] == at[0]["users"]][-1]  # the latest run at that load
        ok, why = rule.check(first)
        cands.append({"label": setting_label(first), "run": first, "passed": ok, "why": why})
    passing = sorted((c for c in cands if c["passed"]), key=lambda c: cost(c["run"]))
    best_held = None
    for r in runs:
        if rule.check(r)[0] and (best_held is None or r["users"] > best_held["users"]):
            best_held = r
    return {"chosen": passing[0] if passing else None, "candidates": cands, "capacity": best_held}


def default_params(plan, cores):
    if plan == "webapp":
        return [f"node_workers={','.join(str(n) for n in sorted({max(1, cores // 2), cores, 2 * cores}))}"]
    if plan == "engine":
        return [f"apache_workers={4 * cores},{8 * cores}"]
    return [f"node_workers={cores},{2 * cores}"]


def run_cli(a):
    from .live import Stack
    from . import sweep as S
    stack = Stack()
    runs_dir = stack.runs_dir
    rule = Rule(a.plan, a.max_p99, a.max_login_error, a.max_error)
    runs = load_runs(runs_dir, a.plan)
    d = decide(runs, a.users, rule)
    if getattr(a, "json", False):
        # what the webapp's admin readiness page shows: the same rule, nothing run or written
        brief = lambda r: r and {"id": r.get("id"), "users": r.get("users"), "label": setting_label(r),
                                 "finished": r.get("finished"), "login_error_pct": r.get("login_error_pct"),
                                 "total": r.get("total"), "profile": r.get("profile")}
        print(json.dumps({
            "plan": a.plan, "users": a.users, "rule": rule.describe(), "runs": len(runs),
            "runs_dir": runs_dir, "latest": max((r.get("finished") or "" for r in runs), default=None),
            "chosen": d["chosen"] and {**brief(d["chosen"]["run"]), "label": d["chosen"]["label"]},
            "capacity": brief(d["capacity"]),
            "candidates": [{"label": c["label"], "passed": c["passed"], "why": c["why"], "run": brief(c["run"])}
                           for c in sorted(d["candidates"], key=lambda c: cost(c["run"]))],
        }))
        return 0
    if not d["candidates"] and not a.no_run:
        params = a.param or sorted({f"{k}={v}" for r in runs for k, v in (r.get("params") or {}).items()}) \
            or default_params(a.plan, P.ncores())
        # merge values of the same knob into one --param
        merged = {}
        for p in params:
            k, v = p.split("=", 1)
            merged.setdefault(k, [])
            for x in v.split(","):
                if x not in merged[k]:
                    merged[k].append(x)
        params = [f"{k}={','.join(v)}" for k, v in merged.items()]
        print(f"no recorded {a.plan} run at {a.users} users or more: running {' '.join(params)} at {a.users} users")
        if not stack.healthy():
            print("error: the stack is not healthy: make up first (or --no-run)", file=sys.stderr)
            return 2
        opts = {"iterations": a.iterations, "think": a.think, "rampup_per_user": 0.1, "cooldown": 5,
                "tag": a.tag, "dry_run": False}
        S.sweep(stack, a.plan, [a.users], S.parse_params(params), None, opts)
        runs = load_runs(runs_dir, a.plan)
        d = decide(runs, a.users, rule)
    print(f"rule: {rule.describe()}.")
    print(f"\ncandidates for {a.users} users ({a.plan} plan, {len(runs)} runs recorded):")
    for c in sorted(d["candidates"], key=lambda c: cost(c["run"])):
        t = c["run"].get("total") or {}
        print(f"  {'PASS' if c['passed'] else 'fail'}  {c['label']:<40} at {c['run']['users']} users:"
              f" login err {c['run'].get('login_error_pct')}%, err {t.get('error_pct')}%, p99 {t.get('p99_ms')} ms,"
              f" ~{cost(c['run'])[0]} MB" + (f"  ({'; '.join(c['why'])})" if c["why"] else ""))
    cap = d["capacity"]
    if d["chosen"]:
        r = d["chosen"]["run"]
        prof = P.Profile(r["profile"], set(), cores=P.ncores())
        out = a.write or os.path.join(stack.tdir, f"recommended-{a.plan}-{a.users}.env")
        with open(out, "w") as f:
            f.write(f"# tuning recommend --users {a.users} --plan {a.plan}: {d['chosen']['label']}\n"
                    f"# from run {r['id']} ({r['users']} users: login error {r.get('login_error_pct')}%,"
                    f" 99% line {(r.get('total') or {}).get('p99_ms')} ms)\n")
            f.write("\n".join(prof.env_lines()) + "\n")
        print(f"\nrecommended for {a.users} users: {d['chosen']['label']}"
              f" (node_workers {prof['WEB_WORKERS']}, webapp maxconn {prof['WEBAPP_MAXCONN']}, listen maxconn"
              f" {prof['HAPROXY_LISTEN_MAXCONN']}, engine maxconn {prof['ENGINE_MAXCONN']}, MaxRequestWorkers"
              f" {prof['ENGINE_MAX_WORKERS']}, max_connections {prof['DB_MAX_CONNECTIONS']})")
        print(f"profile written to {os.path.relpath(out)}; apply it with: tuning/tuning apply {os.path.relpath(out)}")
        return 0
    print(f"\nthis host cannot hold {a.users} users on the {a.plan} plan with any recorded setting.")
    if cap:
        print(f"the most it held: {cap['users']} users ({setting_label(cap)}, run {cap['id']})."
              f" Use that setting and cap the exam at about {cap['users']} students per host, or add cores.")
    elif d["candidates"] or runs:
        print("no recorded load passed at all: start lower (tuning sweep --users 50,100 ...).")
    else:
        print("no runs recorded: tuning sweep first (or drop --no-run).")
    return 3
