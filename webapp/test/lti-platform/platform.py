"""An LTI 1.3 platform for the tests, built on PyPI's lti1p3platform (not ours):
its Registration, OIDC login initiation, message launch (with AGS, NRPS and Deep
Linking claims), access token endpoint (checks our client assertion against our
JWKS) and token validation. This file only wires them to HTTP (stdlib server)
and keeps what an LMS keeps: its users, the scores it received, its roster.

  platform.py PORT TOOL_BASE     prints one JSON line {"ready": ...} when listening

Routes: /jwks, /start?user=&role=&target=&link=[&dl=1] (the LMS's "open the
activity": 302 to the tool's login URL), /auth (the OIDC authorization endpoint:
answers the launch form as JSON {action, id_token, state} for the test to post),
/token, POST /lineitems/ID/scores, GET /memberships, POST /dl-return, GET /state.
"""
import json
import sys
import typing as t
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from jwcrypto.jwk import JWK

from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.registration import Registration

PORT = int(sys.argv[1])
TOOL = sys.argv[2].rstrip("/")
BASE = f"http://127.0.0.1:{PORT}"
ISSUER = f"https://independent-lms-{PORT}.example.org"
CLIENT_ID = f"independent-client-{PORT}"
DEPLOYMENT_ID = f"independent-deployment-{PORT}"
ROLES = {
    "learner": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"],
    "instructor": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"],
}
SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

KEY = JWK.generate(kty="RSA", size=2048)
PRIVATE = KEY.export_to_pem(private_key=True, password=None).decode()
PUBLIC = KEY.export_to_pem().decode()

STATE: t.Dict[str, t.Any] = {"scores": [], "refuse_next": 0, "dl_items": None, "members": [], "launches": {}}


def registration() -> Registration:
    return (
        Registration()
        .set_iss(ISSUER)
        .set_client_id(CLIENT_ID)
        .set_deployment_id(DEPLOYMENT_ID)
        .set_oidc_login_url(f"{TOOL}/lti/login")
        .set_launch_url(f"{TOOL}/lti/launch")
        .set_deeplink_launch_url(f"{TOOL}/lti/launch")
        .set_tool_key_set_url(f"{TOOL}/lti/jwks")
        .set_platform_public_key(PUBLIC)
        .set_platform_private_key(PRIVATE)
    )


class Platform(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs: t.Any) -> None:
        self._registration = registration()

    def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
        return registration()


class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kwargs: t.Any) -> None:
        self._lti_message_hint = kwargs["hint"]

    def get_redirect(self, url: str) -> str:
        return url


class Launch(LTIAdvantageMessageLaunchAbstract):
    def __init__(self, query: t.Dict[str, str], platform: Platform) -> None:
        self._query = query
        super().__init__(None, platform)  # type: ignore[arg-type]

    def get_preflight_response(self) -> t.Dict[str, t.Any]:
        return self._query

    def render_launch_form(self, launch_data: t.Dict[str, t.Any], **kwargs: t.Any) -> t.Dict[str, t.Any]:
        return launch_data


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: t.Any) -> None:  # quiet
        pass

    def send(self, status: int, body: t.Any, ctype: str = "application/json", headers: t.Optional[t.Dict[str, str]] = None) -> None:
        raw = body if isinstance(body, bytes) else (json.dumps(body) if isinstance(body, (dict, list)) else str(body)).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def bearer_ok(self, scope: str) -> bool:
        auth = self.headers.get("Authorization") or ""
        if not auth.startswith("Bearer "):
            return False
        try:
            return Platform().validate_token(auth[7:], allowed_scopes=[scope])
        except Exception:  # pylint: disable=broad-except
            return False

    def do_GET(self) -> None:  # noqa: N802
        u = urlparse(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        if u.path == "/jwks":
            return self.send(200, Platform().get_jwks())
        if u.path == "/state":
            return self.send(200, {k: v for k, v in STATE.items() if k != "launches"})
        if u.path == "/start":
            # the LMS remembers what this user's launch is; the hint names it
            hint = f"{q['user']}:{len(STATE['launches'])}"
            STATE["launches"][hint] = q
            login = Login(None, Platform()).set_launch_url(q["target"])
            login.set_lti_message_hint(hint=hint)
            return self.send(302, "", "text/plain", {"Location": login.initiate_login(q["user"])})
        if u.path == "/auth":
            hint = q.get("lti_message_hint", "")
            want = STATE["launches"].pop(hint, None)
            if not want or q.get("login_hint") != want["user"]:
                return self.send(400, {"error": "unknown launch"})
            launch = Launch(q, Platform())
            launch.set_launch_url(want["target"])
            if want.get("exp"):
                launch.set_id_token_expiration(int(want["exp"]))
            launch.set_user_data(want["user"], ROLES[want["role"]], full_name=f"Independent {want['user']}", email_address=f"{want['user']}@example.org")
            launch.set_launch_context_claim(context_id="ctx-independent", context_title="Independent course", context_label="IND101")
            launch.set_resource_link_claim(want.get("link", "rl-independent"))
            launch.set_nrps(f"{BASE}/memberships")
            if want.get("dl"):
                launch.set_dl(f"{BASE}/dl-return", title="Add", accept_types={"ltiResourceLink"}, extra_data={"course": "IND101"})
            else:
                launch.set_ags(f"{BASE}/lineitems", f"{BASE}/lineitems/{want.get('lineitem', 'li-1')}")
            try:
                form = launch.lti_launch()
            except Exception as err:  # pylint: disable=broad-except
                return self.send(400, {"error": type(err).__name__})
            return self.send(200, {"action": form["launch_url"], "id_token": form["id_token"], "state": form["state"]})
        if u.path == "/memberships":
            if not self.bearer_ok(NRPS):
                return self.send(401, {"error": "invalid token"})
            return self.send(200, {"id": f"{BASE}/memberships", "context": {"id": "ctx-independent"}, "members": STATE["members"]},
                             "application/vnd.ims.lti-nrps.v2.membershipcontainer+json")
        return self.send(404, {"error": "not found"})

    def do_POST(self) -> None:  # noqa: N802
        u = urlparse(self.path)
        raw = self.body()
        if u.path == "/token":
            data = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            try:
                return self.send(200, dict(Platform().get_access_token(data)))
            except Exception as err:  # pylint: disable=broad-except
                return self.send(400, {"error": "invalid_client", "error_description": f"{type(err).__name__}: {err}"})
        if u.path.startswith("/lineitems/") and u.path.endswith("/scores"):
            if not self.bearer_ok(SCORE):
                return self.send(401, {"error": "invalid token"})
            if STATE["refuse_next"] > 0:
                STATE["refuse_next"] -= 1
                return self.send(503, "the gradebook is being recalculated, try again", "text/plain")
            score = json.loads(raw)
            score["lineitem"] = u.path.split("/")[2]
            STATE["scores"].append(score)
            return self.send(200, {})
        if u.path == "/dl-return":
            data = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
            try:
                STATE["dl_items"] = Platform().validate_deeplinking_resp(data)
            except Exception as err:  # pylint: disable=broad-except
                return self.send(400, {"error": f"{type(err).__name__}: {err}"})
            return self.send(200, {"items": STATE["dl_items"]})
        if u.path == "/state":
            STATE.update(json.loads(raw))
            return self.send(200, {})
        return self.send(404, {"error": "not found"})


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
    print(json.dumps({"ready": BASE, "issuer": ISSUER, "client_id": CLIENT_ID, "deployment_id": DEPLOYMENT_ID}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
