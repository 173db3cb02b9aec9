"""HAProxy access log analysis (HTTP log format, `option httplog`).

Counts requests per backend, status and termination state, the queue (Tw), connect
(Tc) and response (Tr) times, and the connection and queue counters, then says in
words what each abnormal termination state means and which knob it points to (the
thesis' section 3.3.4.1, extended to the states the HAProxy manual documents).
"""
import math
import re
from datetime import datetime

# [client:port [accept date]] frontend backend/server TR/Tw/Tc/Tr/Ta status bytes
#   ccookie scookie tsc ac/fc/bc/sc/rc sq/bq ["request"]
LINE = re.compile(
    r"(?:(?P<client>\S+):(?P<cport>\d+) \[(?P<date>[^\]]+)\] )?"
    r"(?P<frontend>[\w.~-]+) (?P<backend>[\w.-]+)/(?P<server>[<>\w.-]+) "
    r"(?P<TR>-?\d+)/(?P<Tw>-?\d+)/(?P<Tc>-?\d+)/(?P<Tr>-?\d+)/\+?(?P<Ta>-?\d+) "
    r"(?P<status>-?\d+) \+?(?P<bytes>\d+) (?P<cc>\S+) (?P<sc_cookie>\S+) (?P<tsc>[\w-]{4}) "
    r"(?P<ac>\d+)/(?P<fc>\d+)/(?P<bc>\d+)/(?P<srvc>\d+)/\+?(?P<rc>\d+) (?P<sq>\d+)/(?P<bq>\d+)"
    r'(?: .*?"(?P<request>[^"]*)")?')

DATE_FMT = "%d/%b/%Y:%H:%M:%S.%f"

# First character: who ended the session. Second: the stage it was in.
CAUSE = {
    "C": "the client aborted", "S": "the server aborted or refused", "P": "HAProxy refused (a rule or a bad request/response)",
    "L": "HAProxy answered itself", "R": "a resource ran out in HAProxy (memory, sockets, ports)",
    "I": "an internal HAProxy error", "D": "the server was marked down", "U": "the server came back up",
    "K": "an admin killed the session", "c": "the client timeout struck", "s": "the server timeout struck",
    "-": "normal",
}
STAGE = {
    "R": "while waiting for the client's request", "Q": "while waiting in the queue for a free server slot",
    "C": "while connecting to the server", "H": "while waiting for the server's response headers",
    "D": "while transferring data", "L": "while sending the last data", "T": "in the tarpit",
    "I": "while idle", "-": "after completion",
}

# What an abnormal state means for this stack, and the knob it points to.
STATES = {
    "sQ": ("Waited in HAProxy's queue for a free server slot longer than `timeout queue` (thesis fig. 3.24):"
           " the server maxconn is full and requests pile up.",
           "webapp: raise WEBAPP_MAXCONN (server maxconn) if the webapp still has CPU to spare, else add node"
           " workers (WEB_WORKERS). engine: this is admission control working (fast 503); more"
           " ENGINE_SLOTS/ENGINE_MAXCONN only if the cores are not already busy, or a longer"
           " ENGINE_TIMEOUT_QUEUE."),
    "sC": ("The TCP connect to the server did not succeed within `timeout connect`: its accept backlog is"
           " full or it is stuck.",
           "more node workers / Apache workers (ENGINE_MAX_WORKERS); HAPROXY_TIMEOUT_CONNECT (thesis 5.3:"
           " contimeout); lower the server maxconn so HAProxy queues instead."),
    "SC": ("The server refused the connection (RST) or HAProxy could not reach it: it is not listening,"
           " restarting, or its listen backlog overflowed (thesis 3.4.2).",
           "more node workers (WEB_WORKERS) or Apache workers; check the webapp/engine log for crashes;"
           " net.core.somaxconn; if it happens only during `tuning apply`, the reload was not graceful."),
    "sH": ("Connected, but the server sent no response headers within `timeout server` (thesis 3.4.2): the"
           " server is overloaded and requests wait inside it.",
           "more node workers (WEB_WORKERS) or engine capacity; lower server maxconn so the excess waits in"
           " HAProxy's queue (visible, bounded) rather than inside the server; WEBAPP_TIMEOUT_SERVER /"
           " ENGINE_TIMEOUT_SERVER only if responses are legitimately slow."),
    "sD": ("The server started answering but the data stalled past `timeout server` (thesis fig. 3.25).",
           "as for sH: more workers or lower server maxconn; timeout server."),
    "SH": ("The server closed the connection before sending headers: a worker crashed, was killed or"
           " recycled mid-request.",
           "webapp/engine error logs; ENGINE_MAX_CONNECTIONS_PER_CHILD (0 = never recycle); a reload that"
           " dropped workers."),
    "SD": ("The server aborted while sending the response.", "webapp/engine error logs."),
    "cD": ("The client stopped reading the response for `timeout client` (or JMeter gave up).",
           "HAPROXY_TIMEOUT_CLIENT; the load generator's own response timeout or CPU (JMeter on the same"
           " host competes for the cores)."),
    "cR": ("The client did not send a complete request within `timeout http-request` (often an idle"
           " keep-alive connection closing, status 408).", "HAPROXY_TIMEOUT_HTTP_REQUEST; usually harmless."),
    "CR": ("The client closed before sending a full request (idle keep-alive closed by the browser).",
           "harmless; no knob."),
    "CQ": ("The client gave up while its request waited in HAProxy's queue.",
           "the queue is too long for the client's patience: more capacity or a shorter timeout queue (fast"
           " 503 + Retry-After)."),
    "CC": ("The client gave up while HAProxy was connecting to the server.", "as for sC."),
    "CH": ("The client gave up while waiting for the server's answer (its own timeout fired first).",
           "the server is slow: more workers; compare the client's timeout with timeout server."),
    "CD": ("The client closed the connection while receiving the response.", "usually harmless."),
    "PR": ("HAProxy refused the request (a deny rule or an invalid request).", "haproxy.cfg rules; no capacity knob."),
    "PH": ("HAProxy refused the server's response (invalid headers).", "the application's response."),
    "LR": ("HAProxy answered itself (stats, redirect, return).", "none: normal."),
    "RC": ("HAProxy ran out of a resource when connecting (sockets, source ports, memory).",
           "HAPROXY_MAXCONN and the fd limit; ephemeral ports (net.ipv4.ip_local_port_range)."),
    "IR": ("Internal HAProxy error.", "HAProxy logs; report a bug."),
    "KR": ("Session killed by an admin (runtime API).", "none."),
    "DQ": ("The server went down while the request waited in its queue.", "the server's health: see its log."),
    "DC": ("The server was down when HAProxy connected (<NOSRV>).", "the server's health: see its log."),
}


def explain(state):
    """(meaning, knob) for a two-letter state."""
    if state in STATES:
        return STATES[state]
    cause = CAUSE.get(state[0], "unknown cause")
    stage = STAGE.get(state[1], "at an unknown stage")
    return (f"Ended because {cause} {stage}.", "see the HAProxy manual, section 8.5 (session state at disconnection).")


def parse_line(line):
    m = LINE.search(line)
    if not m:
        return None
    d = m.groupdict()
    r = {k: int(d[k]) for k in ("TR", "Tw", "Tc", "Tr", "Ta", "status", "bytes", "ac", "fc", "bc", "srvc",
                                "rc", "sq", "bq")}
    r.update(frontend=d["frontend"], backend=d["backend"], server=d["server"], tsc=d["tsc"],
             state=d["tsc"][:2], request=d.get("request") or "", date=d.get("date"))
    req = r["request"].split(" ")
    r["method"] = req[0] if len(req) > 1 else ""
    r["path"] = req[1].split("?")[0] if len(req) > 1 else ""
    return r


def parse_date(s):
    try:
        return datetime.strptime(s, DATE_FMT)
    except (TypeError, ValueError):
        return None


def _pct(vals, p):
    if not vals:
        return None
    vals = sorted(vals)
    return vals[max(0, math.ceil(p / 100 * len(vals)) - 1)]


def _timer(vals):
    vals = [v for v in vals if v >= 0]
    if not vals:
        return {"n": 0}
    return {"n": len(vals), "avg": round(sum(vals) / len(vals), 1), "p90": _pct(vals, 90),
            "p99": _pct(vals, 99), "max": max(vals)}


def analyse_lines(lines, since=None, limits=None):
    """lines: iterable of log lines. since: datetime (naive, local to the log). limits: dict of
    configured limits {'listen_maxconn', 'webapp_maxconn', 'engine_maxconn', 'global_maxconn'} used
    to say whether a counter reached its cap. Returns a JSON-able dict."""
    recs, skipped = [], 0
    for line in lines:
        r = parse_line(line)
        if r is None:
            if line.strip():
                skipped += 1
            continue
        if since is not None:
            d = parse_date(r["date"])
            if d is not None and d < since:
                continue
        recs.append(r)
    out = {"requests": len(recs), "unparsed_lines": skipped, "backends": {}, "states": {}, "findings": []}
    if not recs:
        return out
    for r in recs:
        b = out["backends"].setdefault(r["backend"], {"requests": 0, "status": {}, "states": {}, "_Tw": [],
                                                      "_Tc": [], "_Tr": [], "_Ta": [], "max_sq": 0,
                                                      "max_bq": 0, "max_srv_conns": 0, "no_server": 0,
                                                      "paths": {}})
        b["requests"] += 1
        cls = f"{r['status'] // 100}xx" if r["status"] >= 0 else "none"
        b["status"][cls] = b["status"].get(cls, 0) + 1
        b["states"][r["state"]] = b["states"].get(r["state"], 0) + 1
        out["states"][r["state"]] = out["states"].get(r["state"], 0) + 1
        for t in ("Tw", "Tc", "Tr", "Ta"):
            b["_" + t].append(r[t])
        b["max_sq"] = max(b["max_sq"], r["sq"])
        b["max_bq"] = max(b["max_bq"], r["bq"])
        b["max_srv_conns"] = max(b["max_srv_conns"], r["srvc"])
        if r["server"] == "<NOSRV>":
            b["no_server"] += 1
        if r["state"] != "--" or r["status"] >= 500:
            key = f"{r['method']} {r['path']}".strip()
            b["paths"][key] = b["paths"].get(key, 0) + 1
    for name, b in out["backends"].items():
        for t in ("Tw", "Tc", "Tr", "Ta"):
            b[t] = _timer(b.pop("_" + t))
        bad = sum(n for s, n in b["states"].items() if s != "--")
        b["abnormal"] = bad
        b["abnormal_pct"] = round(100.0 * bad / b["requests"], 3)
        b["paths"] = dict(sorted(b["paths"].items(), key=lambda kv: -kv[1])[:8])
    out["max_frontend_conns"] = max(r["fc"] for r in recs)
    out["max_process_conns"] = max(r["ac"] for r in recs)
    out["status"] = {}
    for r in recs:
        out["status"][str(r["status"])] = out["status"].get(str(r["status"]), 0) + 1
    dates = [d for d in (parse_date(r["date"]) for r in recs) if d]
    if dates:
        out["first"], out["last"] = min(dates).isoformat(), max(dates).isoformat()
    out["findings"] = findings(out, limits or {})
    return out


def findings(a, limits):
    """Plain-words findings: each abnormal state with its count, meaning and knob; saturated counters."""
    f = []
    total = a["requests"]
    for state, n in sorted(a["states"].items(), key=lambda kv: -kv[1]):
        if state == "--":
            continue
        meaning, knob = explain(state)
        where = ", ".join(f"{b} {bd['states'][state]}" for b, bd in a["backends"].items() if state in bd["states"])
        f.append({"state": state, "count": n, "pct": round(100.0 * n / total, 3), "backends": where,
                  "meaning": meaning, "knob": knob})
    lm = limits.get("listen_maxconn")
    if lm and a.get("max_frontend_conns", 0) >= lm:
        f.append({"state": "fc=max", "count": a["max_frontend_conns"], "pct": None, "backends": "frontend",
                  "meaning": f"The frontend reached listen maxconn ({lm}): further clients waited in the"
                             " kernel's accept backlog, invisible to HAProxy's timers.",
                  "knob": "raise HAPROXY_LISTEN_MAXCONN (and HAPROXY_MAXCONN above it)."})
    for b, key in (("webapp", "webapp_maxconn"), ("engine", "engine_maxconn")):
        bd = a["backends"].get(b)
        cap = limits.get(key)
        if bd and cap and bd["max_srv_conns"] >= cap and bd["max_bq"] > 0:
            f.append({"state": "sc=maxconn", "count": bd["max_bq"], "pct": None, "backends": b,
                      "meaning": f"{b} ran at its server maxconn ({cap}) and up to {bd['max_bq']} requests"
                                 f" queued in HAProxy (queue time p99 {bd['Tw'].get('p99')} ms).",
                      "knob": f"{key.upper()} (raise it if {b} has CPU left) or more workers."})
    return f


def analyse_file(path, offset=0, since=None, limits=None):
    """Analyse a log file from a byte offset (sweeps remember the size before a run)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(offset if offset <= size else 0)  # rotated: start over
            data = f.read()
    except OSError as e:
        return {"requests": 0, "error": str(e), "backends": {}, "states": {}, "findings": []}
    return analyse_lines(data.decode("utf-8", "replace").splitlines(), since=since, limits=limits)


def format_analysis(a, title="HAProxy log"):
    lines = [f"{title}: {a['requests']} requests"
             + (f" ({a['first']} .. {a['last']})" if a.get("first") else "")
             + (f", {a['unparsed_lines']} other lines skipped" if a.get("unparsed_lines") else "")]
    if not a["requests"]:
        if a.get("error"):
            lines.append(f"  cannot read the log: {a['error']}")
        return "\n".join(lines)
    lines.append(f"  {'backend':<10} {'requests':>9} {'2xx':>7} {'3xx':>6} {'4xx':>6} {'5xx':>6} {'abnormal':>9}"
                 f" {'Tw avg/p99/max ms':>19} {'Tc avg/p99':>11} {'Tr avg/p99':>13} {'max srv':>7} {'max q':>6}")
    for b, d in sorted(a["backends"].items()):
        s = d["status"]
        tw, tc, tr = d["Tw"], d["Tc"], d["Tr"]
        twx = f"{tw.get('avg', '-')}/{tw.get('p99', '-')}/{tw.get('max', '-')}" if tw["n"] else "-"
        tcx = f"{tc.get('avg', '-')}/{tc.get('p99', '-')}" if tc["n"] else "-"
        trx = f"{tr.get('avg', '-')}/{tr.get('p99', '-')}" if tr["n"] else "-"
        lines.append(f"  {b:<10} {d['requests']:>9} {s.get('2xx', 0):>7} {s.get('3xx', 0):>6} {s.get('4xx', 0):>6}"
                     f" {s.get('5xx', 0):>6} {d['abnormal']:>9} {twx:>19} {tcx:>11} {trx:>13}"
                     f" {d['max_srv_conns']:>7} {d['max_bq']:>6}")
    lines.append("  termination states: " + ", ".join(f"{k} {v}" for k, v in
                                                    sorted(a["states"].items(), key=lambda kv: -kv[1])))
    lines.append(f"  peak connections: process {a['max_process_conns']}, frontend {a['max_frontend_conns']}")
    if not a["findings"]:
        lines.append("  every request ended normally (state --): no limit was hit.")
    for fd in a["findings"]:
        pct = f" ({fd['pct']}%)" if fd["pct"] is not None else ""
        lines.append(f"  * {fd['state']} x{fd['count']}{pct} [{fd['backends']}]: {fd['meaning']}")
        lines.append(f"      knob: {fd['knob']}")
    return "\n".join(lines)
