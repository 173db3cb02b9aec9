"""Per-component limits: used vs configured, with what a saturated one means."""


def _i(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def components(st, apache_peak=None):
    """Checks from the running stack. apache_peak: the largest number of Apache worker processes
    sampled during a run (sweeps sample it), else the count now."""
    out = []
    lv = st.live()
    # MySQL
    s = st.mysql_vars("STATUS", ["Max_used_connections", "Threads_connected", "Threads_running", "Slow_queries",
                                 "Connection_errors_max_connections", "Aborted_connects", "Questions", "Uptime"])
    v = st.mysql_vars("VARIABLES", ["max_connections", "long_query_time", "slow_query_log"])
    if s:
        mx, used = _i(v.get("max_connections")), _i(s.get("Max_used_connections"))
        refused = _i(s.get("Connection_errors_max_connections")) or 0
        pct = round(100.0 * used / mx, 1) if mx and used is not None else None
        verdict = ("REFUSED connections: raise DB_MAX_CONNECTIONS (thesis 3.4.3: 501 of 500 used)" if refused
                   else "near the limit: raise DB_MAX_CONNECTIONS" if pct and pct >= 90 else "ok")
        out.append({"component": "mysql", "what": "connections used vs max_connections",
                    "used": used, "limit": mx, "pct": pct, "verdict": verdict,
                    "detail": {"Threads_connected": _i(s.get("Threads_connected")),
                               "Threads_running": _i(s.get("Threads_running")),
                               "Slow_queries": _i(s.get("Slow_queries")),
                               "Connection_errors_max_connections": refused,
                               "long_query_time": v.get("long_query_time"),
                               "slow_query_log": v.get("slow_query_log")}})
    # HAProxy server slots (the busy count of each backend as HAProxy sees it)
    stats = st.haproxy_stats()
    for px, sv, knob in (("webapp", "webapp1", "WEBAPP_MAXCONN"), ("engine", "engine1", "ENGINE_MAXCONN"),
                         ("www", "FRONTEND", "HAPROXY_LISTEN_MAXCONN")):
        r = stats.get((px, sv))
        if not r:
            continue
        smax, slim, qmax = _i(r.get("smax")), _i(r.get("slim")), _i(r.get("qmax"))
        pct = round(100.0 * smax / slim, 1) if smax is not None and slim else None
        if pct and pct >= 100 and not qmax and px != "www":
            verdict = "reached its maxconn, nothing queued: ok"
        elif px == "engine" and pct and pct >= 100:
            verdict = (f"full (admission control at work); peak queue {qmax}: raise ENGINE_SLOTS/ENGINE_MAXCONN only"
                       " if the cores are not busy")
        elif pct and pct >= 100:
            verdict = f"reached its limit; peak queue {qmax}: raise {knob} or add workers"
        else:
            verdict = "ok"
        out.append({"component": f"haproxy {px}", "what": "peak concurrent sessions vs maxconn (since the last"
                    " reload or counter reset)", "used": smax, "limit": slim, "pct": pct, "verdict": verdict,
                    "detail": {"qmax": qmax, "hrsp_5xx": _i(r.get("hrsp_5xx")), "stot": _i(r.get("stot"))}})
    # Apache: worker processes vs MaxRequestWorkers (mod_status is not loaded: processes are counted)
    am = st.apache_master()
    if am:
        n = len(st.children(am)) if apache_peak is None else apache_peak
        mrw = lv.get("ENGINE_MAX_WORKERS", (None,))[0]
        pct = round(100.0 * n / mrw, 1) if mrw else None
        busy = _i(stats.get(("engine", "engine1"), {}).get("smax"))
        verdict = ("all workers in use: raise ENGINE_MAX_WORKERS (and ENGINE_SERVER_LIMIT)" if pct and pct >= 100
                   else "ok")
        out.append({"component": "apache", "what": "worker processes vs MaxRequestWorkers"
                    + (" (peak during the run)" if apache_peak is not None else " (now)"),
                    "used": n, "limit": mrw, "pct": pct, "verdict": verdict,
                    "detail": {"busy_peak_seen_by_haproxy": busy}})
    # memcached
    mc = st.memcached("stats")
    if mc:
        cur, mx = _i(mc.get("curr_connections")), _i(mc.get("max_connections"))
        rej = (_i(mc.get("rejected_connections")) or 0) + (_i(mc.get("listen_disabled_num")) or 0)
        out.append({"component": "memcached", "what": "connections vs -c", "used": cur, "limit": mx,
                    "pct": round(100.0 * cur / mx, 1) if cur is not None and mx else None,
                    "verdict": "connections were refused: raise MEMCACHED_MAX_CONN" if rej else "ok",
                    "detail": {"rejected": rej, "evictions": _i(mc.get("evictions"))}})
    return out


def format_components(rows):
    lines = ["Components (used vs limit):"]
    for r in rows:
        used = "-" if r["used"] is None else r["used"]
        lim = "-" if r["limit"] is None else r["limit"]
        pct = f" ({r['pct']}%)" if r["pct"] is not None else ""
        lines.append(f"  {r['component']:<16} {used}/{lim}{pct}  {r['what']}: {r['verdict']}")
        d = {k: v for k, v in r["detail"].items() if v not in (None, "")}
        if d:
            lines.append("      " + ", ".join(f"{k}={v}" for k, v in d.items()))
    return "\n".join(lines)
