"""The running stack: read live settings, and apply a profile to it gracefully."""
import csv
import io
import json
import os
import re
import shlex
import socket
import subprocess
import time
import urllib.request

from . import profile as P

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))


class Stack:
    def __init__(self, root=ROOT):
        self.root = root
        self.var = os.environ.get("PRUTOR_VAR") or os.path.join(root, "var")
        self.tdir = os.path.join(self.var, "tuning")
        os.makedirs(self.tdir, exist_ok=True)
        self.profile_env = os.path.join(root, "tuning", "profile.env")
        self.haproxy_tuning_cfg = os.path.join(self.tdir, "haproxy-tuning.cfg")
        self.active_json = os.path.join(self.tdir, "active.json")
        # sweeps record here; tests point it elsewhere so they never mix with real runs
        self.runs_dir = os.environ.get("TUNING_RUNS_DIR") or os.path.join(self.tdir, "runs")
        self._env = None

    # -------------------------------------------------------------- environment
    @property
    def env(self):
        """What bin/prutor exports (ports, paths, and the tunables of the active profile)."""
        if self._env is None:
            env = {}
            try:
                out = subprocess.run([os.path.join(self.root, "bin", "prutor"), "env"], capture_output=True,
                                     text=True, timeout=20).stdout
                for line in out.splitlines():
                    if line.startswith("export "):
                        k, _, v = line[7:].partition("=")
                        try:
                            env[k] = shlex.split(v)[0] if v else ""
                        except ValueError:
                            env[k] = v
            except (OSError, subprocess.SubprocessError):
                pass
            self._env = env
        return self._env

    def e(self, name, default=""):
        return os.environ.get(name) or self.env.get(name) or default

    # -------------------------------------------------------------- helpers
    def ctl(self, *args, timeout=60):
        conf = os.path.join(self.var, "conf", "supervisord.conf")
        return subprocess.run(["supervisorctl", "-c", conf, *args], capture_output=True, text=True, timeout=timeout)

    def pid(self, program):
        try:
            out = self.ctl("pid", program, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None
        return int(out) if out.isdigit() and out != "0" else None

    def http(self, url, timeout=5):
        try:
            with urllib.request.urlopen(url, timeout=timeout) as r:
                return r.status, r.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return None, ""

    def healthy(self):
        code, _ = self.http(f"http://127.0.0.1:{self.e('HAPROXY_PORT', '8080')}/healthz")
        return code == 200

    def haproxy_sock_path(self):
        return os.path.join(self.e("HAPROXY_RUN_DIR") or os.path.join(self.var, "run"), "haproxy.sock")

    def haproxy_cmd(self, cmd, timeout=5):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.haproxy_sock_path())
            s.sendall((cmd + "\n").encode())
            chunks = []
            while True:
                b = s.recv(65536)
                if not b:
                    break
                chunks.append(b)
            return b"".join(chunks).decode("utf-8", "replace")
        finally:
            s.close()

    def haproxy_stats(self):
        """Rows of HAProxy's stats CSV, keyed (pxname, svname)."""
        url = f"http://{self.e('HAPROXY_STATS_BIND', '127.0.0.1')}:{self.e('HAPROXY_STATS_PORT', '8404')}/;csv"
        code, body = self.http(url)
        if code != 200:
            try:
                body = self.haproxy_cmd("show stat")
            except OSError:
                return {}
        rows = {}
        for r in csv.DictReader(io.StringIO(body.lstrip("# "))):
            rows[(r.get("pxname"), r.get("svname"))] = r
        return rows

    def haproxy_info(self):
        try:
            out = self.haproxy_cmd("show info")
        except OSError:
            return {}
        return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)

    def mysql(self, sql):
        """Rows (lists of strings) as root over the socket, or None."""
        cnf = os.path.join(self.var, "conf", "root.cnf")
        try:
            r = subprocess.run(["mariadb", f"--defaults-extra-file={cnf}", "-N", "-B", "-e", sql],
                               capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        if r.returncode != 0:
            return None
        return [line.split("\t") for line in r.stdout.splitlines()]

    def mysql_vars(self, kind, names):
        rows = self.mysql(f"SHOW GLOBAL {kind} WHERE Variable_name IN ("
                          + ",".join(f"'{n}'" for n in names) + ")") or []
        return {r[0]: r[1] for r in rows if len(r) == 2}

    def memcached(self, cmd="stats settings"):
        try:
            s = socket.create_connection((self.e("MEMCACHED_HOST", "127.0.0.1"),
                                          int(self.e("MEMCACHED_PORT", "11211"))), timeout=3)
        except OSError:
            return {}
        try:
            s.sendall((cmd + "\r\n").encode())
            buf = b""
            while not buf.endswith(b"END\r\n"):
                b = s.recv(65536)
                if not b:
                    break
                buf += b
        finally:
            s.close()
        return {p[1]: p[2] for p in (line.split() for line in buf.decode().splitlines()) if len(p) == 3}

    @staticmethod
    def children(pid):
        out = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/stat") as f:
                        st = f.read()
                    if int(st[st.rfind(")") + 2:].split()[1]) == pid:
                        out.append(int(d))
                except (OSError, ValueError, IndexError):
                    pass
        return out

    @staticmethod
    def cmdline(pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                return [a.decode() for a in f.read().split(b"\0") if a]
        except OSError:
            return []

    @staticmethod
    def environ(pid):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                return dict(a.decode("utf-8", "replace").split("=", 1) for a in f.read().split(b"\0") if b"=" in a)
        except OSError:
            return {}

    def apache_master(self):
        try:
            with open(os.path.join(self.engine_var(), "run", "httpd.pid")) as f:
                pid = int(f.read().strip())
            os.kill(pid, 0)
            return pid
        except (OSError, ValueError):
            return None

    def engine_var(self):
        return self.e("ENGINE_VAR") or os.path.join(self.var, "engine")

    def apache_conf_values(self):
        vals = {}
        try:
            with open(os.path.join(self.engine_var(), "httpd.conf")) as f:
                for line in f:
                    m = re.match(r"\s*(ServerLimit|MaxRequestWorkers|MaxConnectionsPerChild)\s+(\d+)", line)
                    if m:
                        vals[m.group(1)] = int(m.group(2))
        except OSError:
            pass
        return vals

    def haproxy_master_uses_tuning_cfg(self):
        pid = self.pid("haproxy")
        return bool(pid) and self.haproxy_tuning_cfg in self.cmdline(pid)

    def webapp_hook_present(self):
        """The running primary handles SIGHUP (it wrote its state file at start). A primary started
        before the hook would die of a SIGHUP, so the source file alone is not enough."""
        wp = self.pid("webapp")
        try:
            return bool(wp) and int(self.webapp_state().get("pid", 0)) == wp
        except ValueError:
            return False

    # -------------------------------------------------------------- live values
    def live(self):
        """{ENV: (value, source)} for every knob that can be read from the running stack."""
        v = {}
        stats = self.haproxy_stats()
        info = self.haproxy_info()
        if info.get("Maxconn"):
            v["HAPROXY_MAXCONN"] = (int(info["Maxconn"]), "haproxy show info")
        fe = stats.get(("www", "FRONTEND"))
        if fe and fe.get("slim"):
            v["HAPROXY_LISTEN_MAXCONN"] = (int(fe["slim"]), "haproxy stats (www slim)")
        for srv, mc, mq in (("webapp1", "WEBAPP_MAXCONN", None), ("engine1", "ENGINE_MAXCONN", "ENGINE_MAXQUEUE")):
            row = next((r for (px, sv), r in stats.items() if sv == srv), None)
            if row and row.get("slim"):
                v[mc] = (int(row["slim"]), f"haproxy stats ({srv} slim)")
            if row and mq and row.get("qlimit"):
                v[mq] = (int(row["qlimit"]), f"haproxy stats ({srv} qlimit)")
        # Timeouts are not in the stats: what the running master was given.
        hpid = self.pid("haproxy")
        if hpid:
            src, vals = "haproxy master environment", self.environ(hpid)
            if self.haproxy_master_uses_tuning_cfg():
                try:
                    with open(self.haproxy_tuning_cfg) as f:
                        tv = dict(re.findall(r"^\s*setenv\s+(\S+)\s+(\S+)", f.read(), re.M))
                    if tv:
                        vals, src = {**vals, **tv}, "haproxy tuning file (setenv, read at the last reload)"
                except OSError:
                    pass
            for k in P.KNOBS:
                if k.component == "haproxy" and k.kind == "dur" and vals.get(k.env):
                    try:
                        v[k.env] = (k.parse(vals[k.env]), src)
                    except ValueError:
                        pass
        # Apache
        am = self.apache_master()
        if am:
            conf = self.apache_conf_values()
            if "MaxRequestWorkers" in conf:
                v["ENGINE_MAX_WORKERS"] = (conf["MaxRequestWorkers"], "engine httpd.conf (as rendered)")
            if "ServerLimit" in conf:
                v["ENGINE_SERVER_LIMIT"] = (conf["ServerLimit"], "engine httpd.conf (as rendered)")
            if "MaxConnectionsPerChild" in conf:
                v["ENGINE_MAX_CONNECTIONS_PER_CHILD"] = (conf["MaxConnectionsPerChild"], "engine httpd.conf")
            env = self.environ(am)
            if env.get("ENGINE_SLOTS", "").isdigit():
                v["ENGINE_SLOTS"] = (int(env["ENGINE_SLOTS"]), "apache2 environment")
        # webapp
        wp = self.pid("webapp")
        if wp:
            n = len([c for c in self.children(wp) if "node" in " ".join(self.cmdline(c))])
            v["WEB_WORKERS"] = (n, "webapp cluster workers (processes)")
            for name, env_name in (("DB_POOL_SIZE", "DB_POOL_SIZE"), ("MEMCACHED_POOL_SIZE", "MEMCACHED_POOL_SIZE")):
                st = self.webapp_state()
                if st.get(env_name, "").isdigit():
                    v[name] = (int(st[env_name]), "webapp primary (last reload)")
                else:
                    e = self.environ(wp)
                    if e.get(env_name, "").isdigit():
                        v[name] = (int(e[env_name]), "webapp environment")
                    else:
                        v[name] = ({"DB_POOL_SIZE": 10, "MEMCACHED_POOL_SIZE": 8}[name], "webapp default (config.js)")
        # MySQL
        mv = self.mysql_vars("VARIABLES", ["max_connections", "innodb_buffer_pool_size",
                                           "innodb_buffer_pool_instances"])
        if mv.get("max_connections"):
            v["DB_MAX_CONNECTIONS"] = (int(mv["max_connections"]), "SHOW VARIABLES")
        if mv.get("innodb_buffer_pool_size"):
            v["DB_BUFFER_POOL_SIZE"] = (int(mv["innodb_buffer_pool_size"]), "SHOW VARIABLES")
        if mv.get("innodb_buffer_pool_instances"):
            v["DB_BUFFER_POOL_INSTANCES"] = (int(mv["innodb_buffer_pool_instances"]), "SHOW VARIABLES")
        # memcached
        ms = self.memcached()
        if ms.get("maxbytes"):
            v["MEMCACHED_MEMORY_MB"] = (int(ms["maxbytes"]) // (1 << 20), "memcached stats settings")
        if ms.get("maxconns"):
            v["MEMCACHED_MAX_CONN"] = (int(ms["maxconns"]), "memcached stats settings")
        return v

    def webapp_state(self):
        """What the webapp primary on WEBAPP_PORT last applied (written at start and after a SIGHUP)."""
        wp = self.pid("webapp")
        for name in (f"webapp-tuning.{self.e('WEBAPP_PORT', '3000')}.json", "webapp-tuning.json"):
            try:
                with open(os.path.join(self.var, "run", name)) as f:
                    st = {k: str(x) for k, x in json.load(f).items()}
            except (OSError, ValueError):
                continue
            if not wp or st.get("pid") == str(wp):
                return st
        return {}

    def usage(self):
        """Live usage: connections, queues, busy workers (for `show` and `analyse`)."""
        u = {}
        stats = self.haproxy_stats()
        for (px, sv), r in stats.items():
            if sv in ("webapp1", "engine1", "FRONTEND") and px in ("www", "webapp", "engine"):
                u[f"haproxy {px}/{sv}"] = {k: r.get(k) for k in ("scur", "smax", "slim", "qcur", "qmax", "qlimit",
                                                                   "stot", "status", "hrsp_5xx")}
        am = self.apache_master()
        if am:
            u["apache workers (processes)"] = len(self.children(am))
        st = self.mysql_vars("STATUS", ["Max_used_connections", "Threads_connected", "Threads_running",
                                         "Slow_queries", "Connection_errors_max_connections", "Aborted_connects"])
        if st:
            u["mysql"] = st
        mc = self.memcached("stats")
        if mc:
            u["memcached"] = {k: mc.get(k) for k in ("curr_connections", "max_connections", "rejected_connections",
                                                      "listen_disabled_num", "curr_items", "bytes")}
        return u


# ------------------------------------------------------------------ apply

def haproxy_tuning_text(p, origin):
    lines = [f"# written by `tuning apply` from {origin}; parsed before haproxy.cfg (haproxy/run.sh),",
             "# so a reload (SIGUSR2 to the master) picks the values up. Do not edit: re-apply a profile.",
             "global"]
    for k in P.KNOBS:
        if k.component == "haproxy":
            lines.append(f"    setenv {k.env} {k.fmt(p.values[k.env])}")
    return "\n".join(lines) + "\n"


def write_atomic(path, text, mode=0o644):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.replace(tmp, path)


class ApplyResult:
    def __init__(self):
        self.rows = []      # (env, before, after, status, how)
        self.notes = []
        self.failed = []

    def add(self, env, before, after, status, how):
        self.rows.append((env, before, after, status, how))


def apply_profile(stack, p, origin, log=print, wait=True):
    """Persist `p` as the active profile and bring the running stack to it gracefully.
    Returns an ApplyResult. Never restarts memcached, MariaDB or the engine."""
    res = ApplyResult()
    live = stack.live() if stack.healthy() or stack.pid("haproxy") else {}
    try:
        with open(stack.active_json) as f:
            prev = json.load(f).get("values", {})
    except (OSError, ValueError):
        prev = {}
    before = {}
    for k in P.KNOBS:
        if k.env in live:
            before[k.env] = live[k.env][0]
        elif k.env in prev:
            before[k.env] = prev[k.env]
    changed = {k.env for k in P.KNOBS if before.get(k.env) != p.values[k.env]}

    # 1. persist: bin/prutor (and compose's env_file) read tuning/profile.env at the next start
    write_atomic(stack.profile_env, p.as_text(time.strftime("%Y-%m-%d %H:%M:%S")))
    write_atomic(stack.haproxy_tuning_cfg, haproxy_tuning_text(p, origin))
    write_atomic(stack.active_json, json.dumps({"origin": origin, "name": p.name, "applied": time.time(),
                                                "values": p.values}, indent=1))
    up = bool(stack.pid("haproxy") or stack.pid("webapp") or stack.pid("engine"))
    if not up:
        res.notes.append("the stack is not running: saved to tuning/profile.env; `make up` starts with it.")
        for k in P.KNOBS:
            res.add(k.env, before.get(k.env), p.values[k.env], "next start" if k.env in changed else "unchanged", "")
        return res
    status = {}

    # 2. HAProxy: reload the master (it re-reads the tunables file; no connection is dropped)
    hk = [k.env for k in P.KNOBS if k.component == "haproxy" and k.env in changed]
    if hk:
        status.update(_apply_haproxy(stack, p, hk, res, log, wait))
    # 3. Apache: re-render httpd.conf, graceful restart
    ak = [e for e in ("ENGINE_MAX_WORKERS", "ENGINE_MAX_CONNECTIONS_PER_CHILD", "ENGINE_SERVER_LIMIT") if e in changed]
    if ak:
        status.update(_apply_apache(stack, p, ak, live, res, log))
    # 4. webapp: SIGHUP to the cluster primary (rolls its workers)
    wk = [e for e in ("WEB_WORKERS", "DB_POOL_SIZE", "MEMCACHED_POOL_SIZE") if e in changed]
    if wk:
        status.update(_apply_webapp(stack, p, wk, res, log, wait))
    # 5. MariaDB: dynamic variables now, the rest at the next start
    if "DB_MAX_CONNECTIONS" in changed:
        ok = stack.mysql(f"SET GLOBAL max_connections = {p['DB_MAX_CONNECTIONS']}") is not None
        status["DB_MAX_CONNECTIONS"] = ("live", "SET GLOBAL max_connections") if ok else ("FAILED", "SET GLOBAL")
    if "DB_BUFFER_POOL_SIZE" in changed:
        ok = stack.mysql(f"SET GLOBAL innodb_buffer_pool_size = {p['DB_BUFFER_POOL_SIZE']}") is not None
        status["DB_BUFFER_POOL_SIZE"] = (("live", "SET GLOBAL innodb_buffer_pool_size (resized in the background)")
                                         if ok else ("FAILED", "SET GLOBAL"))
    if "DB_BUFFER_POOL_INSTANCES" in changed:
        status["DB_BUFFER_POOL_INSTANCES"] = ("compose only", "MariaDB has one buffer pool; MySQL reads it at start")
    for e in ("MEMCACHED_MEMORY_MB", "MEMCACHED_MAX_CONN"):
        if e in changed:
            status[e] = ("next restart", "memcached restart: loses every session (students log in again);"
                                         " not done by apply")
    if "ENGINE_SLOTS" in changed:
        status["ENGINE_SLOTS"] = ("next restart", "engine restart (sandbox slot users are made at start)")
    for k in P.KNOBS:
        if k.env not in changed:
            res.add(k.env, before.get(k.env), p.values[k.env], "unchanged", "")
        else:
            st, how = status.get(k.env, ("next restart", ""))
            if st == "FAILED":
                res.failed.append(k.env)
            res.add(k.env, before.get(k.env), p.values[k.env], st, how)
    if any(r[3] == "next restart" for r in res.rows):
        res.notes.append("'next restart' values are in tuning/profile.env: `make restart` (or `bin/prutor restart"
                         " <program>` after `make up` re-rendered the environment) applies them. `make up` re-renders"
                         " supervisord's environment and restarts every program whose environment changed: not"
                         " during an exam.")
    return res


def _wait(pred, timeout, step=0.25):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(step)
    return pred()


def _apply_haproxy(stack, p, keys, res, log, wait):
    st = {}
    cfg = os.path.join(stack.root, "haproxy", "haproxy.cfg")
    if stack.haproxy_master_uses_tuning_cfg():
        chk = subprocess.run(["haproxy", "-c", "-q", "-f", stack.haproxy_tuning_cfg, "-f", cfg],
                             capture_output=True, text=True, env={**os.environ, **stack.env})
        if chk.returncode != 0:
            res.notes.append("haproxy -c refused the new values: " + (chk.stdout + chk.stderr).strip()[:500])
            return {k: ("FAILED", "haproxy -c") for k in keys}
        mpid = stack.pid("haproxy")
        log(f"  haproxy: reload (SIGUSR2 to master {mpid})")
        os.kill(mpid, 12)  # SIGUSR2: new worker with the new config; old one finishes its connections

        def reloaded():
            lv = stack.live()
            return all(lv.get(k, (None,))[0] == p.values[k] for k in keys if k in
                       ("HAPROXY_MAXCONN", "HAPROXY_LISTEN_MAXCONN", "WEBAPP_MAXCONN", "ENGINE_MAXCONN",
                        "ENGINE_MAXQUEUE"))
        ok = _wait(reloaded, 15) if wait else True
        for k in keys:
            st[k] = ("live", "haproxy reload (SIGUSR2)") if ok else ("FAILED", "reload not visible in stats")
        return st
    # The running master was started without the tunables file: the runtime API changes the
    # connection limits now; the rest waits for a restart.
    res.notes.append("haproxy was started without var/tuning/haproxy-tuning.cfg (haproxy/run.sh predates the"
                     " hook): maxconn values set through the runtime API; timeouts at the next restart.")
    api = {"HAPROXY_MAXCONN": "set maxconn global {}", "HAPROXY_LISTEN_MAXCONN": "set maxconn frontend www {}",
           "WEBAPP_MAXCONN": "set maxconn server webapp/webapp1 {}", "ENGINE_MAXCONN": "set maxconn server engine/engine1 {}"}
    for k in keys:
        if k in api:
            try:
                out = stack.haproxy_cmd(api[k].format(p.values[k])).strip()
                st[k] = ("live", "runtime API") if not out else ("FAILED", out)
            except OSError as e:
                st[k] = ("FAILED", str(e))
        else:
            st[k] = ("next restart", "haproxy restart")
    return st


def _apply_apache(stack, p, keys, live, res, log):
    st = {}
    env = {**os.environ, **stack.env, "ENGINE_VAR": stack.engine_var()}
    for k in ("ENGINE_MAX_WORKERS", "ENGINE_SERVER_LIMIT", "ENGINE_MAX_CONNECTIONS_PER_CHILD", "ENGINE_SLOTS"):
        env[k] = str(p.values[k])
    r = subprocess.run([os.path.join(stack.root, "engine", "render-config.sh"), stack.engine_var()],
                       capture_output=True, text=True, env=env)
    if r.returncode != 0:
        res.notes.append("engine/render-config.sh failed: " + r.stderr.strip()[:300])
        return {k: ("FAILED", "render-config.sh") for k in keys}
    conf = r.stdout.strip().splitlines()[-1]
    rendered = stack.apache_conf_values()
    if "ServerLimit" in rendered and rendered["ServerLimit"] != p["ENGINE_SERVER_LIMIT"] or \
            rendered.get("MaxConnectionsPerChild", 0) != p["ENGINE_MAX_CONNECTIONS_PER_CHILD"]:
        res.notes.append("engine/httpd.conf.tmpl has no ServerLimit/MaxConnectionsPerChild placeholders yet:"
                         " ServerLimit follows MaxRequestWorkers.")
    t = subprocess.run(["apache2", "-t", "-d", stack.engine_var(), "-f", conf], capture_output=True, text=True, env=env)
    if t.returncode != 0:
        res.notes.append("apache2 -t refused the config: " + t.stderr.strip()[:300])
        return {k: ("FAILED", "apache2 -t") for k in keys}
    # SIGUSR1 (graceful restart) straight to the master supervisord runs. Not `apache2 -k graceful`:
    # when the master is stopping (a concurrent restart), that command starts a second, daemonized
    # Apache outside supervisord.
    master, sup = stack.apache_master(), stack.pid("engine")
    if not master or master != sup:
        why = f"the Apache master (pid file {master}) is not the engine supervisord runs ({sup}): not signalled"
        res.notes.append(why)
        return {k: ("next restart", why) for k in keys}
    log(f"  engine: graceful restart (SIGUSR1 to the Apache master {master})")
    try:
        os.kill(master, 10)
        ok, err = True, ""
    except OSError as e:
        ok, err = False, str(e)
    live_limit = live.get("ENGINE_SERVER_LIMIT", (None,))[0]
    for k in keys:
        if not ok:
            st[k] = ("FAILED", "SIGUSR1 to Apache: " + err)
        elif k == "ENGINE_SERVER_LIMIT":
            st[k] = ("next restart", "engine restart (Apache reads ServerLimit only at start)")
        elif k == "ENGINE_MAX_WORKERS" and live_limit and p[k] > live_limit and p["ENGINE_SERVER_LIMIT"] != live_limit:
            st[k] = ("partly live", f"graceful; capped at the running ServerLimit {live_limit} until an engine restart")
        else:
            st[k] = ("live", "Apache graceful restart (SIGUSR1)")
    return st


def _apply_webapp(stack, p, keys, res, log, wait):
    wp = stack.pid("webapp")
    if not stack.webapp_hook_present() or not wp:
        return {k: ("next restart", "webapp restart (server.js has no SIGHUP reload)") for k in keys}
    log(f"  webapp: SIGHUP to the cluster primary {wp} ({p['WEB_WORKERS']} workers)")
    os.kill(wp, 1)

    def done():
        cur = stack.pid("webapp") or wp  # a restart meanwhile starts from tuning/profile.env's environment
        n = len([c for c in stack.children(cur) if "node" in " ".join(stack.cmdline(c))])
        s = stack.webapp_state()
        return n == p["WEB_WORKERS"] and s.get("WEB_WORKERS") == str(p["WEB_WORKERS"]) and s.get("state") == "ready"
    ok = _wait(done, 60) if wait else True
    return {k: ("live", "webapp SIGHUP (workers rolled)") if ok else ("FAILED", "workers not rolled in 60 s")
            for k in keys}


def format_apply(res):
    out = [f"  {'setting':<33} {'alias':<29} {'before':>8} {'after':>8}  {'status':<13} how"]
    for env, b, a, st, how in res.rows:
        k = P.BY_ENV[env]
        bs = k.fmt(b) if isinstance(b, int) else (b if b is not None else "?")
        if st == "unchanged":
            continue
        out.append(f"  {env:<33} {k.alias:<29} {bs:>8} {k.fmt(a):>8}  {st:<13} {how}")
    unchanged = [r for r in res.rows if r[3] == "unchanged"]
    if len(unchanged) == len(res.rows):
        out.append("  nothing changed: the stack already runs these values.")
    elif unchanged:
        out.append(f"  ({len(unchanged)} settings unchanged)")
    return "\n".join(out)
