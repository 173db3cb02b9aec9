"""Command line of tuning/tuning."""
import argparse
import json
import os
import sys
import time

from . import haplog
from . import profile as P

USAGE_EPILOG = """examples:
  tuning validate                                  # every profile in tuning/profiles/
  tuning validate small my.env                     # those profiles
  tuning show                                      # live values of every knob, and usage
  tuning apply small                               # validate, persist, reload gracefully
  tuning analyse --since 10m                       # HAProxy/MySQL/Apache: what limited the last 10 minutes
  tuning sweep --plan webapp --users 100,200 --param node_workers=1,2
  tuning recommend --users 500 --plan webapp       # the profile for 500 students on this host
  tuning report                                    # var/tuning/report/report.html and report.md
"""


def _stack():
    from .live import Stack
    return Stack()


def cmd_validate(a):
    from .live import ROOT
    names = a.profiles or sorted(os.path.join(ROOT, "tuning", "profiles", n)
                                 for n in os.listdir(os.path.join(ROOT, "tuning", "profiles")) if n.endswith(".env"))
    bad = 0
    for n in names:
        try:
            path = P.find_profile(n, ROOT)
            p = P.load(path, overrides=dict(kv.split("=", 1) for kv in a.set or []))
        except (P.ProfileError, OSError) as e:
            print(f"{n}: INVALID\n  - " + str(e).replace("\n", "\n  - "))
            bad += 1
            continue
        issues = P.validate(p)
        errs = P.errors(issues)
        est = P.estimate_memory_mb(p)
        print(f"{os.path.relpath(path)}: {'REFUSED' if errs else 'ok'}"
              f" (node_workers {p['WEB_WORKERS']}, webapp/engine maxconn {p['WEBAPP_MAXCONN']}/{p['ENGINE_MAXCONN']},"
              f" listen {p['HAPROXY_LISTEN_MAXCONN']}, MaxRequestWorkers {p['ENGINE_MAX_WORKERS']},"
              f" max_connections {p['DB_MAX_CONNECTIONS']}; ~{sum(est.values())} MB at its limits)")
        for lvl, m in issues:
            print(f"  {lvl}: {m}")
        bad += bool(errs)
    return 1 if bad else 0


def cmd_show(a):
    st = _stack()
    if a.profile:
        from .live import ROOT
        p = P.load(P.find_profile(a.profile, ROOT))
        print(f"profile {p.source} resolved for this host ({p.cores} cores):")
        for k in P.KNOBS:
            mark = "" if k.env in p.explicit else "  (default)"
            print(f"  {k.env:<34} {k.alias:<30} {p.display(k.env):>8}{mark}")
        return 0
    live = st.live()
    try:
        with open(st.active_json) as f:
            act = json.load(f)
    except (OSError, ValueError):
        act = {}
    if not live:
        print("the stack is not running (make up): no live values")
    print(f"active profile: {act.get('origin', '(none applied: bin/prutor defaults)')}"
          + (f", applied {time.strftime('%Y-%m-%d %H:%M', time.localtime(act['applied']))}" if act.get("applied") else ""))
    print(f"  {'setting':<33} {'alias':<29} {'live':>8} {'profile':>8}  source")
    for k in P.KNOBS:
        lv = live.get(k.env)
        pv = act.get("values", {}).get(k.env)
        ls = k.fmt(lv[0]) if lv else "-"
        ps = k.fmt(pv) if pv is not None else "-"
        flag = "  << differs" if lv and pv is not None and lv[0] != pv else ""
        print(f"  {k.env:<33} {k.alias:<29} {ls:>8} {ps:>8}  {lv[1] if lv else 'not readable live'}{flag}")
    if live:
        print("\nusage now:")
        for name, v in st.usage().items():
            print(f"  {name}: {v if not isinstance(v, dict) else ', '.join(f'{x}={y}' for x, y in v.items())}")
    if a.json:
        print(json.dumps({k: v[0] for k, v in live.items()}))
    return 0


def load_cli_profile(name, sets):
    from .live import ROOT
    path = P.find_profile(name, ROOT)
    return P.load(path, overrides=dict(kv.split("=", 1) for kv in sets or [])), path


def cmd_apply(a):
    from .live import apply_profile, format_apply
    try:
        p, path = load_cli_profile(a.profile, a.set)
    except (P.ProfileError, OSError) as e:
        print(f"refused: {e}", file=sys.stderr)
        return 2
    issues = P.validate(p)
    for lvl, m in issues:
        print(f"{lvl}: {m}", file=sys.stderr if lvl == "error" else sys.stdout)
    if P.errors(issues):
        print(f"refused: {os.path.relpath(path)} is not applied ({len(P.errors(issues))} error(s) above)",
              file=sys.stderr)
        return 2
    st = _stack()
    origin = os.path.relpath(path) + (" " + " ".join(a.set) if a.set else "")
    print(f"applying {origin}")
    res = apply_profile(st, p, origin)
    print(format_apply(res))
    for n in res.notes:
        print(f"note: {n}")
    print("persisted: tuning/profile.env (bin/prutor reads it at every start), var/tuning/haproxy-tuning.cfg")
    if res.failed:
        print(f"FAILED: {', '.join(res.failed)}", file=sys.stderr)
        return 1
    return 0


def _since(s):
    if not s:
        return None
    from datetime import datetime, timedelta
    mul = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if s[-1] in mul and s[:-1].isdigit():
        return datetime.now() - timedelta(seconds=int(s[:-1]) * mul[s[-1]])
    return datetime.fromisoformat(s)


def cmd_analyse(a):
    from . import analyse
    st = None if a.log else _stack()
    log = a.log or os.path.join(st.var, "log", "haproxy.log")
    limits = {}
    if st:
        lv = st.live()
        limits = {"listen_maxconn": lv.get("HAPROXY_LISTEN_MAXCONN", (None,))[0],
                  "webapp_maxconn": lv.get("WEBAPP_MAXCONN", (None,))[0],
                  "engine_maxconn": lv.get("ENGINE_MAXCONN", (None,))[0]}
    res = haplog.analyse_file(log, since=_since(a.since), limits=limits)
    print(haplog.format_analysis(res, title=f"HAProxy log {os.path.relpath(log)}"))
    if st and not a.log:
        print()
        print(analyse.format_components(analyse.components(st)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


def cmd_sweep(a):
    from . import sweep
    return sweep.run_cli(a)


def cmd_recommend(a):
    from . import recommend
    return recommend.run_cli(a)


def cmd_plan(a):
    from . import plan as planner
    assume = planner.Assumptions()
    for item in a.set or []:
        name, _, value = item.partition("=")
        if name not in planner.Assumptions.names():
            print(f"plan: unknown assumption {name!r}; known: {', '.join(planner.Assumptions.names())}", file=sys.stderr)
            return 2
        try:
            setattr(assume, name, type(getattr(assume, name))(value))
        except ValueError:
            print(f"plan: {name} needs a number, got {value!r}", file=sys.stderr)
            return 2
    try:
        p = planner.plan(a.students, a.host_cores, assume)
    except ValueError as e:
        print(f"plan: {e}", file=sys.stderr)
        return 2
    print(json.dumps(p, indent=2) if a.json else planner.format_plan(p))
    return 0


def cmd_report(a):
    from . import report
    return report.run_cli(a)


def main(argv):
    ap = argparse.ArgumentParser(prog="tuning", description="Size and tune the deployment before an exam.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=USAGE_EPILOG)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("validate", help="check profiles (all of tuning/profiles/ by default)")
    s.add_argument("profiles", nargs="*")
    s.add_argument("--set", action="append", metavar="KNOB=VALUE", help="override a value (repeatable)")
    s.set_defaults(fn=cmd_validate)
    s = sub.add_parser("show", help="live value of every knob (or a profile resolved for this host)")
    s.add_argument("--profile")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_show)
    s = sub.add_parser("apply", help="validate a profile, persist it, reload every component gracefully")
    s.add_argument("profile")
    s.add_argument("--set", action="append", metavar="KNOB=VALUE", help="override a value (repeatable)")
    s.set_defaults(fn=cmd_apply)
    s = sub.add_parser("analyse", aliases=["analyze"], help="HAProxy log, MySQL and Apache: what limited the load")
    s.add_argument("--since", help="only log lines after this (10m, 2h, or an ISO time)")
    s.add_argument("--log", help="a HAProxy log file (default var/log/haproxy.log; no live checks then)")
    s.add_argument("--json", help="also write the analysis to this file")
    s.set_defaults(fn=cmd_analyse)
    s = sub.add_parser("sweep", help="run the JMeter plans for each combination of settings and loads")
    s.add_argument("--plan", default="webapp", choices=["webapp", "engine", "combined"])
    s.add_argument("--users", required=True, help="comma-separated loads, e.g. 500,1000")
    s.add_argument("--param", action="append", default=[], metavar="KNOB=V1,V2",
                   help="a knob and its values (repeatable; the grid is their product)")
    s.add_argument("--base", default=None, help="profile the params are applied on (default: the active one)")
    s.add_argument("--iterations", type=int, default=None, help="JMeter iterations (default 5, the thesis')")
    s.add_argument("--think", type=int, default=None, help="think time ms (default 2000)")
    s.add_argument("--rampup-per-user", type=float, default=0.1, help="ramp-up seconds per user (default 0.1)")
    s.add_argument("--cooldown", type=int, default=5, help="seconds between runs (default 5)")
    s.add_argument("--tag", default="", help="a label stored with the runs")
    s.add_argument("--dry-run", action="store_true", help="print the runs and the time estimate only")
    s.set_defaults(fn=cmd_sweep)
    s = sub.add_parser("recommend", help="the profile for N users on this host, from recorded sweeps")
    s.add_argument("--users", type=int, required=True)
    s.add_argument("--plan", default="webapp", choices=["webapp", "engine", "combined"])
    s.add_argument("--max-p99", type=int, default=None, help="99%% line bound in ms (default 10000 webapp, 30000 engine)")
    s.add_argument("--max-login-error", type=float, default=0.0, help="login error %% allowed (default 0)")
    s.add_argument("--max-error", type=float, default=1.0, help="error %% of all requests allowed (default 1)")
    s.add_argument("--no-run", action="store_true", help="never run missing sweeps; use what is recorded")
    s.add_argument("--param", action="append", default=[], metavar="KNOB=V1,V2",
                   help="candidate settings to run when none is recorded (default: node_workers / apache grid)")
    s.add_argument("--iterations", type=int, default=None)
    s.add_argument("--think", type=int, default=None)
    s.add_argument("--tag", default="")
    s.add_argument("--write", help="write the recommended profile here (default var/tuning/recommended-<plan>-<N>.env)")
    s.add_argument("--json", action="store_true", help="print the decision as JSON (implies --no-run; writes nothing)")
    s.set_defaults(fn=cmd_recommend)
    s = sub.add_parser("plan", help="engine and webapp cores and hosts for N students, from this host's per-request figures")
    s.add_argument("--students", type=int, required=True)
    s.add_argument("--host-cores", type=int, default=8, help="cores per host (default 8)")
    s.add_argument("--set", action="append", metavar="NAME=VALUE", help="override one assumption")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=cmd_plan)
    s = sub.add_parser("report", help="Markdown + HTML report with plots (var/tuning/report/)")
    s.add_argument("--out", default=None)
    s.add_argument("--tag", default=None, help="only runs with this tag")
    s.set_defaults(fn=cmd_report)
    a = ap.parse_args(argv)
    try:
        return a.fn(a)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
