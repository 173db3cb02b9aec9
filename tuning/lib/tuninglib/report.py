"""Report: Markdown + HTML with PNG plots (matplotlib) from the recorded runs.

Writes var/tuning/report/{report.md, report.html, plots/*.png, report.json}. The HTML is
self-contained (plots embedded) so the webapp's admin page can serve the one file."""
import base64
import html
import json
import os
import subprocess
import sys
import time

from . import profile as P
from .recommend import Rule, cost, decide, load_runs, setting_key, setting_label

VENV_DIRNAME = "venv"


def ensure_matplotlib(stack, argv):
    """Re-exec under var/tuning/venv (created with matplotlib from PyPI on first use) if needed."""
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        pass
    venv = os.path.join(stack.tdir, VENV_DIRNAME)
    py = os.path.join(venv, "bin", "python")
    if os.environ.get("TUNING_IN_VENV"):
        print("error: matplotlib is not importable in the venv", file=sys.stderr)
        sys.exit(2)
    if not os.path.exists(py):
        print(f"installing matplotlib into {venv} (once)...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    if subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "-q", "matplotlib"], check=True)
    tool = os.path.join(stack.root, "tuning", "tuning")
    os.execve(py, [py, tool, *argv], {**os.environ, "TUNING_IN_VENV": "1"})


def _series(runs):
    """{setting label: sorted [(users, run)]} keeping the latest run per (setting, users)."""
    by = {}
    for r in runs:
        if r.get("error") or not r.get("total"):
            continue
        lab = setting_label(r)
        key = setting_key(r)
        by.setdefault((lab, key), {})[r["users"]] = r
    out = {}
    for (lab, key), d in by.items():
        name = lab
        while name in out:
            name += "'"
        out[name] = sorted(d.items())
    return out


def plots(runs, plan, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    series = _series(runs)
    if not series:
        return []
    files = []
    specs = [
        ("error", "error % (all requests) and login error % (dashed)", "error %",
         lambda r: (r["total"].get("error_pct") or 0), lambda r: r.get("login_error_pct")),
        ("response", "average (solid) and 99% line (dashed) response time", "ms",
         lambda r: r["total"].get("average_ms"), lambda r: r["total"].get("p99_ms")),
        ("throughput", "throughput", "requests/s", lambda r: r["total"].get("throughput_per_s"), None),
    ]
    for name, title, ylabel, f1, f2 in specs:
        fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
        for i, (lab, pts) in enumerate(series.items()):
            color = f"C{i % 10}"
            xs = [u for u, _ in pts]
            ax.plot(xs, [f1(r) for _, r in pts], marker="o", color=color, label=lab)
            if f2:
                ys = [f2(r) for _, r in pts]
                if any(y is not None for y in ys):
                    ax.plot(xs, [y if y is not None else float("nan") for y in ys], marker="x", linestyle="--",
                            color=color)
        ax.set_title(f"{plan}: {title}", fontsize=10)
        ax.set_xlabel("virtual users")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fn = os.path.join(outdir, f"{plan}-{name}.png")
        fig.savefig(fn)
        plt.close(fig)
        files.append(fn)
    return files


def summary_table(runs, plan):
    """Thesis-style parameter table: for each load recorded, the cheapest passing setting."""
    rule = Rule(plan)
    rows = []
    for u in sorted({r["users"] for r in runs}):
        d = decide([r for r in runs if r["users"] == u], u, rule)
        c = d["chosen"]
        if c:
            r = c["run"]
            p = r["profile"]
            t = r["total"]
            rows.append([u, p["WEB_WORKERS"], p["WEBAPP_MAXCONN"], p["HAPROXY_LISTEN_MAXCONN"], p["ENGINE_MAXCONN"],
                         p["ENGINE_MAX_WORKERS"], p["DB_MAX_CONNECTIONS"], f"{r.get('login_error_pct')}",
                         f"{t.get('error_pct')}", t.get("average_ms"), t.get("p99_ms"), c["label"]])
        else:
            best = min((x["run"] for x in d["candidates"]), key=lambda r: (r.get("total") or {}).get("error_pct") or 0,
                       default=None)
            rows.append([u, "-", "-", "-", "-", "-", "-", "no setting passed", "", "", "",
                         f"best tried: {setting_label(best)}" if best else ""])
    head = ["users", "node workers", "webapp maxconn", "listen maxconn", "engine maxconn", "MaxRequestWorkers",
            "max_connections", "login err %", "err %", "avg ms", "99% ms", "setting"]
    return head, rows, rule


def run_table(runs):
    head = ["users", "setting", "samples", "average", "90% line", "99% line", "error %", "login err %",
            "throughput", "HAProxy states", "peak RSS MB", "CPU cores (node/apache/jobs/mysql/jmeter)", "run"]
    rows = []
    for r in sorted(runs, key=lambda r: (setting_label(r), r["users"])):
        if r.get("error") or not r.get("total"):
            rows.append([r["users"], setting_label(r), "", "", "", "", "", "", "", "", "", "", r.get("error", "")[:80]])
            continue
        t = r["total"]
        states = ", ".join(f"{k} {v}" for k, v in sorted((r.get("haproxy") or {}).get("states", {}).items(),
                                                          key=lambda kv: -kv[1]))
        mem = sum(v.get("peak_mb", 0) for v in ((r.get("resources") or {}).get("memory") or {}).values())
        cpu = r.get("cpu") or {}
        cores = "/".join(f"{(cpu.get(c) or {}).get('avg_cores', 0) or 0:.2f}"
                         for c in ("node", "apache2", "engine jobs", "mariadbd", "jmeter"))
        rows.append([r["users"], setting_label(r), t.get("samples"), t.get("average_ms"), t.get("p90_ms"),
                     t.get("p99_ms"), t.get("error_pct"), r.get("login_error_pct"), t.get("throughput_per_s"),
                     states, round(mem), cores, r["id"]])
    return head, rows


def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(str(x) for x in r) + " |")
    return "\n".join(out)


def html_table(head, rows):
    h = "".join(f"<th>{html.escape(str(x))}</th>" for x in head)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>"


def findings(runs):
    """The abnormal HAProxy states of the runs that failed, with what they point to."""
    out = []
    for r in runs:
        hp = r.get("haproxy") or {}
        for f in hp.get("findings", [])[:4]:
            out.append(f"{r['plan']} {r['users']}u [{setting_label(r)}]: {f['state']} x{f['count']} — {f['meaning']}"
                       f" Knob: {f['knob']}")
    return out[:30]


def build(stack, outdir, tag=None):
    runs_dir = stack.runs_dir
    os.makedirs(os.path.join(outdir, "plots"), exist_ok=True)
    host = f"{P.ncores()} cores, {P.mem_total_mb()} MB RAM"
    md = [f"# Prutor tuning report", "",
          f"Generated {time.strftime('%Y-%m-%d %H:%M')} on this host ({host}) by `tuning/tuning report` from the"
          f" runs in `var/tuning/runs/`. Capacity is the **login error %** (thesis: a failed login only"
          f" redirects later requests and hides the failure); a setting passes a load when login error is 0%,"
          f" the error of all requests is at most 1%, the 99% line is under the bound (10 s webapp, 30 s engine)"
          f" and no acknowledged save is missing.", ""]
    hb = [f"<h1>Prutor tuning report</h1><p>{html.escape(md[2])}</p>"]
    data = {"generated": time.time(), "host": host, "plans": {}}
    for plan in ("webapp", "engine", "combined"):
        runs = load_runs(runs_dir, plan, tag)
        if not runs:
            continue
        pngs = plots(runs, plan, os.path.join(outdir, "plots"))
        head, rows, rule = summary_table(runs, plan)
        rh, rr = run_table(runs)
        md += [f"## {plan} plan ({len(runs)} runs)", "", "### Parameter summary for this host", "",
               f"Rule: {rule.describe()}.", "", md_table(head, rows), ""]
        hb += [f"<h2>{plan} plan ({len(runs)} runs)</h2><h3>Parameter summary for this host</h3>",
               f"<p>Rule: {html.escape(rule.describe())}.</p>", html_table(head, rows)]
        md += ["### Plots", ""]
        hb.append("<h3>Plots</h3>")
        for fn in pngs:
            rel = os.path.relpath(fn, outdir)
            md += [f"![{os.path.basename(fn)}]({rel})", ""]
            with open(fn, "rb") as f:
                b64 = base64.b64encode(f.read()).decode()
            hb.append(f'<img alt="{html.escape(os.path.basename(fn))}" src="data:image/png;base64,{b64}">')
        md += ["### Runs", "", md_table(rh, rr), ""]
        hb += ["<h3>Runs</h3>", html_table(rh, rr)]
        fs = findings(runs)
        if fs:
            md += ["### What the HAProxy logs said", ""] + [f"- {x}" for x in fs] + [""]
            hb += ["<h3>What the HAProxy logs said</h3><ul>"] + [f"<li>{html.escape(x)}</li>" for x in fs] + ["</ul>"]
        data["plans"][plan] = {"summary": {"head": head, "rows": rows}, "runs": [r["id"] for r in runs],
                               "plots": [os.path.relpath(f, outdir) for f in pngs]}
    if not data["plans"]:
        md += ["No runs recorded yet: `tuning/tuning sweep --plan webapp --users 100,200 --param node_workers=1,2`."]
        hb.append("<p>No runs recorded yet.</p>")
    with open(os.path.join(outdir, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    css = ("body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}"
           "table{border-collapse:collapse;font-size:12px;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;"
           "padding:2px 6px;text-align:right}th{background:#f3f3f3}td:nth-child(2){text-align:left}"
           "img{max-width:49%;margin:2px}h2{border-bottom:1px solid #ccc}")
    with open(os.path.join(outdir, "report.html"), "w") as f:
        f.write(f"<!doctype html><html><head><meta charset='utf-8'><title>Prutor tuning report</title>"
                f"<style>{css}</style></head><body>{''.join(hb)}</body></html>\n")
    with open(os.path.join(outdir, "report.json"), "w") as f:
        json.dump(data, f, indent=1, default=str)
    return outdir, data


def run_cli(a):
    from .live import Stack
    stack = Stack()
    ensure_matplotlib(stack, sys.argv[1:] if sys.argv[0].endswith("tuning") else ["report"])
    out = a.out or os.path.join(stack.tdir, "report")
    outdir, data = build(stack, out, a.tag)
    n = sum(len(p["runs"]) for p in data["plans"].values())
    print(f"report of {n} runs: {os.path.join(outdir, 'report.html')} (self-contained) and"
          f" {os.path.join(outdir, 'report.md')} (+ plots/)")
    return 0
