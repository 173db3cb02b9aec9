#!/usr/bin/env python3
"""Turns one load run into the thesis' figures.

  report.py --results results.csv --meta meta.json [--cpu cpu.json]
            [--db-saves db_saves.tsv] --out summary.json

Prints the aggregate table (label, samples, average, 90% line, 99% line, error %,
throughput) per label in the thesis' order and TOTAL, the login error % (the
capacity figure: later requests of a failed login only hide the failure), the
failure messages, the CPU of each component, and the nothing-lost check: saves
acknowledged by the webapp (save samples with success=true, with the code_id they
returned) against the rows stored in `code` for the load users during the run
(db_saves.tsv: one "id<TAB>save_trigger" line per row). Any difference fails.
Exit status: 0 ok, 3 saves lost or unacknowledged, 4 no samples at all,
5 failed samples (only with --fail-on-errors).
"""
import argparse
import csv
import json
import math
import sys

ORDER = ["login", "login busy", "home", "codebook", "editor", "save", "compile", "execute", "evaluate"]


def percentile(sorted_vals, p):
    """nearest-rank percentile (what JMeter's aggregate report shows as 'p% line')."""
    if not sorted_vals:
        return 0
    k = max(0, math.ceil(p / 100.0 * len(sorted_vals)) - 1)
    return sorted_vals[k]


def stats(rows):
    el = sorted(r["elapsed"] for r in rows)
    n = len(el)
    errors = sum(1 for r in rows if not r["success"])
    start = min(r["ts"] for r in rows)
    end = max(r["ts"] + r["elapsed"] for r in rows)
    span = max(end - start, 1) / 1000.0
    return {
        "samples": n,
        "average_ms": round(sum(el) / n, 1),
        "median_ms": percentile(el, 50),
        "p90_ms": percentile(el, 90),
        "p95_ms": percentile(el, 95),
        "p99_ms": percentile(el, 99),
        "min_ms": el[0],
        "max_ms": el[-1],
        "errors": errors,
        "error_pct": round(100.0 * errors / n, 3),
        "throughput_per_s": round(n / span, 2),
    }


def read_results(fn):
    rows = []
    with open(fn, newline="", encoding="utf-8", errors="replace") as f:
        for r in csv.DictReader(f):
            try:
                rows.append({
                    "ts": int(r["timeStamp"]),
                    "elapsed": int(r["elapsed"]),
                    "label": r["label"],
                    "code": r.get("responseCode", ""),
                    "success": r["success"].strip().lower() == "true",
                    "failure": (r.get("failureMessage") or r.get("responseMessage") or "").strip(),
                    "thread": r.get("threadName", ""),
                    "code_id": (r.get("code_id") or "").strip(),
                    "variant": (r.get("variant") or "").strip(),
                })
            except (KeyError, ValueError):
                continue
    return rows


def fmt_table(table):
    head = f"{'label':<11} {'samples':>8} {'average':>9} {'90% line':>9} {'99% line':>9} {'error %':>8} {'throughput':>11}"
    lines = [head, "-" * len(head)]
    for label, s in table:
        lines.append(f"{label:<11} {s['samples']:>8} {s['average_ms']:>9.0f} {s['p90_ms']:>9} {s['p99_ms']:>9}"
                     f" {s['error_pct']:>7.2f}% {s['throughput_per_s']:>9.2f}/s")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--meta", required=True)
    ap.add_argument("--cpu")
    ap.add_argument("--db-saves")
    ap.add_argument("--out", required=True)
    ap.add_argument("--fail-on-errors", action="store_true", help="exit 5 if any sample failed")
    a = ap.parse_args()

    meta = json.load(open(a.meta))
    rows = read_results(a.results)
    summary = {"meta": meta, "labels": {}, "total": None}
    if not rows:
        print("no samples in", a.results)
        summary["verdict"] = "no samples"
        json.dump(summary, open(a.out, "w"), indent=1)
        return 4

    by = {}
    for r in rows:
        by.setdefault(r["label"], []).append(r)
    labels = [l for l in ORDER if l in by] + sorted(l for l in by if l not in ORDER)
    table = [(l, stats(by[l])) for l in labels]
    total = stats(rows)
    table.append(("TOTAL", total))
    for l, s in table[:-1]:
        summary["labels"][l] = s
    summary["total"] = total
    login = summary["labels"].get("login")
    summary["login_error_pct"] = login["error_pct"] if login else None

    print()
    print(f"plan={meta.get('plan')} users={meta.get('users')} rampup={meta.get('rampup')}s "
          f"iterations={meta.get('iterations')} think={meta.get('think')}ms  "
          f"({meta.get('started')} .. {meta.get('finished')}, {meta.get('duration_s')} s)")
    print(fmt_table(table))
    print()
    if login:
        print(f"capacity figure: login error % = {login['error_pct']:.3f}% "
              f"({login['errors']} of {login['samples']} logins failed)")
    # sign-ins the admission answered 503 + Retry-After, waited out and sent again (as
    # the login page does): how many, and how long students took to get in, waits included
    busy = [r for r in rows if r["label"] == "login busy"]
    if busy:
        first = {}
        for r in busy:
            first[r["thread"]] = min(first.get(r["thread"], r["ts"]), r["ts"])
        to_in = sorted((r["ts"] + r["elapsed"] - first.get(r["thread"], r["ts"])) for r in rows if r["label"] == "login" and r["success"])
        pct = lambda q: to_in[min(len(to_in) - 1, int(q * len(to_in)))] if to_in else 0
        summary["login_busy"] = {"answers": len(busy), "students": len(first),
                                 "signin_ms_p50": pct(0.5), "signin_ms_p90": pct(0.9), "signin_ms_p99": pct(0.99)}
        print(f"sign-in admission: {len(busy)} answers 503 + Retry-After to {len(first)} students, waited out and "
              f"retried; time to sign in, waits included: median {pct(0.5)} ms, 90% {pct(0.9)} ms, 99% {pct(0.99)} ms")

    # what went wrong, most frequent first
    fails = {}
    for r in rows:
        if not r["success"]:
            k = f"{r['label']}: {r['code']} {r['failure'][:100]}"
            fails[k] = fails.get(k, 0) + 1
    summary["failures"] = dict(sorted(fails.items(), key=lambda kv: -kv[1])[:20])
    if fails:
        print("failures (most frequent first):")
        for k, v in list(summary["failures"].items())[:10]:
            print(f"  {v:>7} x {k}")

    # the engine's mix of programs (correct / wrong answer / compile error)
    variants = {}
    for r in by.get("compile", []):
        if r["variant"]:
            variants[r["variant"]] = variants.get(r["variant"], 0) + 1
    if variants:
        summary["engine_programs"] = variants
        print("engine programs sent (compile):", ", ".join(f"{k} {v}" for k, v in sorted(variants.items())))

    # CPU of each component
    if a.cpu:
        try:
            cpu = json.load(open(a.cpu))
        except (OSError, ValueError):
            cpu = None
        if cpu:
            summary["cpu"] = cpu
            print(f"\nCPU during the run ({cpu['wall_s']} s, {cpu['cores']} cores; 1.00 = one core busy all along):")
            print(f"  {'component':<12} {'cpu-s':>8} {'avg cores':>10} {'peak':>6}  procs")
            for comp, c in cpu["components"].items():
                procs = c['processes'] if comp != "engine jobs" else "(gcc + runs, reaped by apache2 workers)"
                print(f"  {comp:<12} {c['cpu_s']:>8.1f} {c['avg_cores']:>10.2f} {c['peak_cores']:>6.2f}  {procs}")
            m = cpu["machine"]
            print(f"  {'machine':<12} {'':>8} {m['avg_cores']:>10.2f} {m['peak_cores']:>6.2f}  ({m['avg_busy_pct']}% busy)")
            if "others" in cpu:
                print(f"  {'others':<12} {'':>8} {cpu['others']['avg_cores']:>10.2f} {'':>6}  (not this stack nor JMeter: other work on the host)")
            if "loadavg_1m" in cpu:
                la = cpu["loadavg_1m"]
                print(f"  host load average (1 min): {la['start']:.2f} at start, {la['max']:.2f} at most, {la['end']:.2f} at the end")

    # nothing lost under load
    rc = 0
    saves = by.get("save", [])
    acked = [r for r in saves if r["success"]]
    ack_ids = {r["code_id"] for r in acked if r["code_id"].isdigit()}
    if a.db_saves is not None:
        db = {}
        with open(a.db_saves) as f:
            for line in f:
                p = line.rstrip("\n").split("\t")
                if p and p[0].isdigit():
                    db[p[0]] = p[1] if len(p) > 1 else ""
        check = {
            "acknowledged": len(acked),
            "stored": len(db),
            "stored_submits": sum(1 for t in db.values() if t == "submit"),
            "acknowledged_with_code_id": len(ack_ids),
        }
        if ack_ids and len(ack_ids) == len(acked):
            lost = sorted(ack_ids - set(db), key=int)
            unacked = sorted(set(db) - ack_ids, key=int)
            check["acknowledged_not_stored"] = len(lost)
            check["stored_not_acknowledged"] = len(unacked)
            check["lost_ids_sample"] = lost[:20]
            check["acknowledged_submits"] = sum(1 for i in ack_ids if db.get(i) == "submit")
            ok = not lost and not unacked
        else:
            ok = len(acked) == len(db)
        check["ok"] = ok
        summary["nothing_lost"] = check
        print(f"\nnothing lost: saves acknowledged {check['acknowledged']} / stored in code {check['stored']}"
              f" (submits stored {check['stored_submits']})", end="")
        if "acknowledged_not_stored" in check:
            print(f"; matched by code_id: acknowledged but not stored {check['acknowledged_not_stored']},"
                  f" stored but not acknowledged {check['stored_not_acknowledged']}", end="")
        print(" ->", "OK" if ok else "MISMATCH")
        if not ok:
            rc = 3
    if rc == 0 and a.fail_on_errors and total["errors"]:
        rc = 5
    summary["verdict"] = {0: "ok", 3: "saves mismatch", 5: "failed samples"}[rc]
    json.dump(summary, open(a.out, "w"), indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main())
