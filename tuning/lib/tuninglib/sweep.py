"""Sweeps: for each combination of settings and loads, apply, run jmeter-plans/bench.sh,
and record the table, CPU, memory and the log analysis into var/tuning/runs/*.json."""
import itertools
import json
import os
import subprocess
import sys
import threading
import time

from . import analyse, haplog
from . import profile as P
from .live import ROOT, Stack, apply_profile

RESTART_KNOBS = {"ENGINE_SLOTS", "ENGINE_SERVER_LIMIT", "MEMCACHED_MEMORY_MB", "MEMCACHED_MAX_CONN",
                 "DB_BUFFER_POOL_INSTANCES"}
REQS_PER_ITER = {"webapp": 10, "engine": 3}


def parse_params(params):
    """['node_workers=1,2,4', ...] -> [(Knob, [raw values])]."""
    out = []
    for p in params:
        if "=" not in p:
            raise P.ProfileError(f"--param {p!r}: expected KNOB=V1,V2")
        name, vals = p.split("=", 1)
        k = P.knob(name.strip())
        vs = [v.strip() for v in vals.split(",") if v.strip()]
        for v in vs:
            try:
                k.parse(v)
            except ValueError as e:
                raise P.ProfileError(f"--param {name}: {e}")
        out.append((k, vs))
    return out


def grid(params):
    if not params:
        return [{}]
    keys = [k for k, _ in params]
    return [dict(zip([k.env for k in keys], combo)) for combo in itertools.product(*[v for _, v in params])]


def base_raw(stack, base):
    """Raw values of the base profile: --base, else the active tuning/profile.env, else defaults."""
    if base:
        path = P.find_profile(base, ROOT)
    elif os.path.exists(stack.profile_env):
        path = stack.profile_env
    else:
        path = P.find_profile("default", ROOT)
    with open(path) as f:
        return P.parse_env_text(f.read(), path), path


def estimate_run_s(plan, users, iterations, think, rampup):
    """A first guess of one run's wall time (JMeter start + ramp-up + the iterations + report)."""
    it = iterations if iterations is not None else 5
    th = (think if think is not None else 2000) / 1000.0
    per_user = {"webapp": it * REQS_PER_ITER["webapp"] * (th + 0.05),
                "engine": it * REQS_PER_ITER["engine"] * (th + 0.6),
                "combined": it * REQS_PER_ITER["webapp"] * (th + 0.1)}[plan]
    return 20 + rampup + per_user + users * 0.01


def fmt_dur(s):
    s = int(max(0, s))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """One status line: a bar over the planned seconds, the current run, elapsed and time left.
    The estimate of the runs still to come is scaled by how long the finished ones really took."""

    def __init__(self, estimates, out=sys.stderr):
        self.est = list(estimates)
        self.done_actual, self.done_est = 0.0, 0.0
        self.i, self.label, self.t_run = 0, "", time.time()
        self.t0 = time.time()
        self.out, self.tty = out, out.isatty()
        self._halt = threading.Event()
        self._last_print = 0
        self.th = threading.Thread(target=self._loop, daemon=True)

    def start(self):
        self.th.start()

    def begin(self, i, label):
        self.i, self.label, self.t_run = i, label, time.time()

    def end(self, i):
        self.done_actual += time.time() - self.t_run
        self.done_est += self.est[i]

    def stop(self):
        self._halt.set()
        self.th.join(2)
        if self.tty:
            self.out.write("\n")
            self.out.flush()

    def line(self):
        ratio = (self.done_actual / self.done_est) if self.done_est else 1.0
        cur_el = time.time() - self.t_run
        cur_left = max(self.est[self.i] * ratio - cur_el, 5) if self.i < len(self.est) else 0
        rest = sum(self.est[self.i + 1:]) * ratio
        left = cur_left + rest
        total = self.done_actual + cur_el + left
        frac = (self.done_actual + cur_el) / total if total else 1
        w = 30
        bar = "#" * int(frac * w) + "." * (w - int(frac * w))
        return (f"[{bar}] run {self.i + 1}/{len(self.est)} {self.label}  elapsed {fmt_dur(time.time() - self.t0)}"
                f"  left ~{fmt_dur(left)}")

    def _loop(self):
        while not self._halt.wait(1):
            if self.tty:
                self.out.write("\r" + self.line()[:160].ljust(160))
                self.out.flush()
            elif time.time() - self._last_print >= 30:
                self._last_print = time.time()
                self.out.write(self.line() + "\n")
                self.out.flush()


class Sampler(threading.Thread):
    """Every 2 s: resident memory of each program's process tree, Apache worker processes,
    MySQL Threads_connected. Keeps the peaks and averages."""

    PROGS = ["mariadb", "memcached", "ferretdb", "engine", "webapp", "haproxy"]

    def __init__(self, stack, interval=2.0):
        super().__init__(daemon=True)
        self.st, self.interval = stack, interval
        self.pids = {p: stack.pid(p) for p in self.PROGS}
        self.samples = []
        self._halt = threading.Event()

    def tree(self, pid):
        todo, seen = [pid], []
        kids = {}
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        s = f.read()
                    kids.setdefault(int(s[s.rfind(")") + 2:].split()[1]), []).append(int(d))
                except (OSError, ValueError, IndexError):
                    pass
        while todo:
            p = todo.pop()
            seen.append(p)
            todo.extend(kids.get(p, []))
        return seen

    @staticmethod
    def rss_mb(pid):
        try:
            with open(f"/proc/{pid}/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)
        except (OSError, ValueError, IndexError):
            return 0.0

    def run(self):
        while not self._halt.is_set():
            s = {"t": time.time(), "rss_mb": {}, "procs": {}}
            for prog, pid in self.pids.items():
                if pid:
                    t = self.tree(pid)
                    s["rss_mb"][prog] = round(sum(self.rss_mb(p) for p in t), 1)
                    s["procs"][prog] = len(t)
            am = self.st.apache_master()
            if am:
                s["apache_workers"] = len(self.st.children(am))
            tc = self.st.mysql_vars("STATUS", ["Threads_connected"]).get("Threads_connected")
            if tc and tc.isdigit():
                s["mysql_threads"] = int(tc)
            self.samples.append(s)
            self._halt.wait(self.interval)

    def stop(self):
        self._halt.set()
        self.join(5)

    def summary(self):
        if not self.samples:
            return {}
        mem = {}
        for prog in self.PROGS:
            vals = [s["rss_mb"][prog] for s in self.samples if prog in s["rss_mb"]]
            if vals:
                mem[prog] = {"avg_mb": round(sum(vals) / len(vals), 1), "peak_mb": max(vals),
                             "peak_procs": max(s["procs"].get(prog, 0) for s in self.samples)}
        aw = [s["apache_workers"] for s in self.samples if "apache_workers" in s]
        mt = [s["mysql_threads"] for s in self.samples if "mysql_threads" in s]
        return {"memory": mem, "apache_workers_peak": max(aw) if aw else None,
                "mysql_threads_peak": max(mt) if mt else None, "samples": len(self.samples)}


def run_one(stack, prof, plan, users, params, opts, sweep_id, idx, log):
    """Apply `prof`, run bench.sh, return the run record (also written to var/tuning/runs/)."""
    runs_dir = stack.runs_dir
    os.makedirs(runs_dir, exist_ok=True)
    pstr = "-".join(f"{P.BY_ENV[e].alias}{v}" for e, v in sorted(params.items())) or "base"
    run_id = f"{sweep_id}-{idx:02d}-{plan}-{users}u-{pstr}"
    rec = {"id": run_id, "sweep": sweep_id, "tag": opts.get("tag", ""), "plan": plan, "users": users,
           "params": {P.BY_ENV[e].alias: prof[e] for e in params},
           "profile": prof.values, "host": {"cores": P.ncores(), "mem_mb": P.mem_total_mb()},
           "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
    # 1. apply (restarts only if a knob that needs one changed)
    before = stack.live()
    need_restart = [e for e in RESTART_KNOBS if e in before and before[e][0] != prof[e]]
    res = apply_profile(stack, prof, f"sweep {sweep_id}: {pstr}", log=lambda *a: None)
    if need_restart:
        log(f"restarting the stack for {', '.join(need_restart)} (sweeps may; `tuning apply` never does)")
        r = subprocess.run([os.path.join(ROOT, "bin", "prutor"), "up"], capture_output=True, text=True,
                           env={**os.environ, "PRUTOR_SKIP_INSTALL": "1"})
        if r.returncode != 0:
            rec["error"] = "bin/prutor up failed: " + r.stderr[-400:]
            return rec
        stack._env = None
    if res.failed:
        rec["error"] = f"apply failed for {', '.join(res.failed)}"
        return rec
    for _ in range(60):
        if stack.healthy():
            break
        time.sleep(1)
    time.sleep(2)
    # 2. reset the counters the analysis reads
    logf = os.path.join(stack.var, "log", "haproxy.log")
    offset = os.path.getsize(logf) if os.path.exists(logf) else 0
    try:
        stack.haproxy_cmd("clear counters")
    except OSError:
        pass
    stack.mysql("FLUSH STATUS")
    slow0 = stack.mysql_vars("STATUS", ["Slow_queries"]).get("Slow_queries")
    # 3. the load
    rampup = max(1, int(round(users * opts["rampup_per_user"])))
    env = {**os.environ, "PLAN": plan, "USERS": str(users), "RAMPUP": str(rampup), "RUN_NAME": run_id}
    if opts.get("iterations") is not None:
        env["ITERATIONS"] = str(opts["iterations"])
    if opts.get("think") is not None:
        env["THINK"] = str(opts["think"])
    sampler = Sampler(stack)
    sampler.start()
    t0 = time.time()
    with open(os.path.join(runs_dir, run_id + ".bench.txt"), "w") as out:
        b = subprocess.run([os.path.join(ROOT, "bin", "prutor"), "run", "jmeter-plans/bench.sh"], stdout=out,
                           stderr=subprocess.STDOUT, env=env)
    sampler.stop()
    rec["duration_s"] = round(time.time() - t0, 1)
    rec["bench_exit"] = b.returncode
    rec["rampup"] = rampup
    results_root = os.environ.get("RESULTS_DIR") or os.path.join(ROOT, "results")
    rec["results_dir"] = os.path.join(results_root, run_id)
    try:
        with open(os.path.join(rec["results_dir"], "summary.json")) as f:
            summ = json.load(f)
    except (OSError, ValueError):
        summ = None
    if summ:
        rec["labels"] = summ.get("labels")
        rec["total"] = summ.get("total")
        rec["login_error_pct"] = summ.get("login_error_pct")
        rec["nothing_lost"] = summ.get("nothing_lost")
        rec["failures"] = summ.get("failures")
        rec["bench_verdict"] = summ.get("verdict")
        cpu = summ.get("cpu") or {}
        rec["cpu"] = {c: {"avg_cores": v.get("avg_cores"), "peak_cores": v.get("peak_cores")}
                      for c, v in (cpu.get("components") or {}).items()}
        rec["cpu_machine"] = cpu.get("machine")
        rec["iterations"] = (summ.get("meta") or {}).get("iterations")
        rec["think"] = (summ.get("meta") or {}).get("think")
    else:
        rec["error"] = f"bench.sh exited {b.returncode} without a summary (see var/tuning/runs/{run_id}.bench.txt)"
    # 4. what limited it
    smp = sampler.summary()
    rec["resources"] = smp
    limits = {"listen_maxconn": prof["HAPROXY_LISTEN_MAXCONN"], "webapp_maxconn": prof["WEBAPP_MAXCONN"],
              "engine_maxconn": prof["ENGINE_MAXCONN"]}
    rec["haproxy"] = haplog.analyse_file(logf, offset=offset, limits=limits)
    rec["components"] = analyse.components(stack, apache_peak=smp.get("apache_workers_peak"))
    slow1 = stack.mysql_vars("STATUS", ["Slow_queries"]).get("Slow_queries")
    if slow0 is not None and slow1 is not None:
        rec["mysql_slow_queries"] = int(slow1) - int(slow0)
    rec["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    with open(os.path.join(runs_dir, run_id + ".json"), "w") as f:
        json.dump(rec, f, indent=1)
    return rec


def one_line(rec):
    if rec.get("error"):
        return f"{rec['id']}: ERROR {rec['error']}"
    t = rec.get("total") or {}
    return (f"{rec['plan']} {rec['users']}u {rec['params']}: login err {rec.get('login_error_pct')}%,"
            f" err {t.get('error_pct')}%, avg {t.get('average_ms')} ms, p99 {t.get('p99_ms')} ms,"
            f" {t.get('throughput_per_s')} req/s; haproxy states {rec['haproxy'].get('states')}")


def sweep(stack, plan, users_list, params, base, opts, log=print, progress=True):
    """Run the grid; returns the run records. Restores the base profile afterwards."""
    raw, base_path = base_raw(stack, base)
    combos = grid(params)
    plan_runs = []
    for combo in combos:
        try:
            prof = P.resolve({**raw, **combo}, name="sweep", source=base_path)
        except P.ProfileError as e:
            log(f"skip {combo}: {e}")
            continue
        errs = P.errors(P.validate(prof))
        if errs:
            log(f"skip {', '.join(f'{P.BY_ENV[k].alias}={v}' for k, v in combo.items())}: refused: {errs[0]}")
            continue
        for u in users_list:
            plan_runs.append((prof, combo, u))
    if not plan_runs:
        log("nothing to run")
        return []
    ests = [estimate_run_s(plan, u, opts.get("iterations"), opts.get("think"), max(1, u * opts["rampup_per_user"]))
            + opts.get("cooldown", 5) for _, _, u in plan_runs]
    log(f"sweep: {len(plan_runs)} runs of the {plan} plan, about {fmt_dur(sum(ests))} in all")
    if opts.get("dry_run"):
        for (prof, combo, u), e in zip(plan_runs, ests):
            log(f"  {u} users, {', '.join(f'{P.BY_ENV[k].alias}={v}' for k, v in combo.items()) or 'base'}: ~{fmt_dur(e)}")
        return []
    sweep_id = time.strftime("%Y%m%d-%H%M%S")
    base_prof = P.resolve(raw, name=os.path.basename(base_path), source=base_path)
    pr = Progress(ests)
    if progress:
        pr.start()
    recs = []
    try:
        for i, (prof, combo, u) in enumerate(plan_runs):
            label = f"{plan} {u}u " + " ".join(f"{P.BY_ENV[k].alias}={v}" for k, v in combo.items())
            pr.begin(i, label)
            rec = run_one(stack, prof, plan, u, combo, opts, sweep_id, i, log=log)
            pr.end(i)
            recs.append(rec)
            if progress and pr.tty:
                sys.stderr.write("\r" + " " * 160 + "\r")
            log(one_line(rec))
            if i + 1 < len(plan_runs):
                time.sleep(opts.get("cooldown", 5))
    finally:
        if progress:
            pr.stop()
        log(f"restoring the base profile ({os.path.relpath(base_path, ROOT)})")
        apply_profile(stack, base_prof, os.path.relpath(base_path, ROOT), log=lambda *a: None)
    return recs


def run_cli(a):
    stack = Stack()
    try:
        params = parse_params(a.param)
        users = [int(u) for u in a.users.split(",") if u.strip()]
    except (P.ProfileError, KeyError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not a.dry_run and not stack.healthy():
        print("error: the stack is not healthy (curl 127.0.0.1:8080/healthz): make up first", file=sys.stderr)
        return 2
    opts = {"iterations": a.iterations, "think": a.think, "rampup_per_user": a.rampup_per_user,
            "cooldown": a.cooldown, "tag": a.tag, "dry_run": a.dry_run}
    recs = sweep(stack, a.plan, users, params, a.base, opts)
    if recs:
        print(f"\n{len(recs)} runs recorded in var/tuning/runs/; next: tuning report, tuning recommend")
    return 1 if any(r.get("error") for r in recs) else 0
