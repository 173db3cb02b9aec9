#!/usr/bin/env python3
"""A stand-in for HAProxy+webapp+engine that speaks the routes of CONTRACTS.md, for
developing the plans without the real stack (stdlib only; no database, so no
nothing-lost check). Usage: mock_stack.py [port] [busy_logins]   (default 18080 0)
Any user logs in with the password "load-pass"; prints one line per request. The
first busy_logins sign-ins of each user are answered as the sign-in admission answers
when it is full: 503 with Retry-After: 1 and the login page (jmeter-plans/test.sh
checks that the webapp plan waits and signs in again, as the login page does)."""
import json
import secrets
import sys
import urllib.parse
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler

SESSIONS = {}
SAVES = []
BUSY_LOGINS = 0
LOGIN_ATTEMPTS = {}


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *a):
        sys.stderr.write("mock: " + fmt % a + "\n")

    def send(self, code, body, ctype="text/html; charset=utf-8", headers=()):
        b = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(b)

    def session(self):
        for part in self.headers.get("Cookie", "").split(";"):
            k, _, v = part.strip().partition("=")
            if k == "prutor.sid" and v in SESSIONS:
                return SESSIONS[v]
        return None

    def page(self, s, title):
        return (f'<!doctype html><html><head><meta name="csrf-token" content="{s["csrf"]}">'
                f"<title>{title}</title></head><body>{title} of {s['user']}</body></html>")

    def do_GET(self):
        s = self.session()
        path = self.path.split("?")[0]
        if path == "/healthz":
            return self.send(200, '{"status":"ok"}', "application/json")
        if path == "/accounts/login":
            return self.send(200, '<form method="post" action="/accounts/login"><input name="username"><input type="password" name="password"></form>')
        if not s:
            return self.send(302, "Found", headers=[("Location", "/accounts/login")])
        if path in ("/home", "/codebook") or path.startswith("/editor/"):
            return self.send(200, self.page(s, path))
        self.send(404, "not found")

    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0))
        raw = self.rfile.read(n).decode()
        if "json" in self.headers.get("Content-Type", ""):
            form = json.loads(raw or "{}")
        else:
            form = {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}
        path = self.path
        if path == "/accounts/login":
            user = form.get("username")
            LOGIN_ATTEMPTS[user] = LOGIN_ATTEMPTS.get(user, 0) + 1
            if LOGIN_ATTEMPTS[user] <= BUSY_LOGINS:
                return self.send(503, '<p>Many students are signing in at once.</p><input type="password" name="password">',
                                 headers=[("Retry-After", "1")])
            if form.get("password") != "load-pass":
                return self.send(200, '<p>Wrong username or password</p><input type="password" name="password">')
            sid = secrets.token_urlsafe(32)
            SESSIONS[sid] = {"user": form.get("username"), "csrf": secrets.token_urlsafe(32)}
            return self.send(302, "Found. Redirecting to /home",
                             headers=[("Location", "/home"), ("Set-Cookie", f"prutor.sid={sid}; Path=/; HttpOnly")])
        s = self.session()
        if not s:
            return self.send(401, '{"error":"log in"}', "application/json")
        if (self.headers.get("X-CSRF-Token") or form.get("_csrf")) != s["csrf"]:
            return self.send(403, '{"error":"csrf"}', "application/json")
        if path == "/editor/save":
            if form.get("trigger") not in ("manual", "auto", "submit") or not form.get("code"):
                return self.send(400, '{"error":"bad save"}', "application/json")
            SAVES.append(form)
            sys.stderr.write("mock save: user=%s aid=%s trigger=%s %s\n" % (
                s["user"], form.get("assignment_id"), form.get("trigger"), form["code"].splitlines()[2]))
            return self.send(200, json.dumps({"ok": True, "code_id": len(SAVES)}), "application/json")
        if path in ("/compile", "/execute", "/evaluate"):
            code = form.get("code", "")
            ok = "MISSING_SEMICOLON" not in code and "int main" in code
            return self.send(200, json.dumps({"ok": True, "compiled": ok, "verdict": "ok" if ok else "compile_error"}),
                             "application/json")
        self.send(404, '{"error":"no route"}', "application/json")


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18080
    BUSY_LOGINS = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
