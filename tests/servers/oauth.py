"""A tiny OAuth 2.0 token introspection endpoint (RFC 7662) on loopback, for Dovecot.

The test Dovecot's ``oauth2`` passdb (``introspection_mode = post``) posts
``token=<access token>`` here and logs the user in when the answer says the token is
active and names that user (``username_attribute = email``). Tokens are whatever a test
issues with :meth:`Introspection.issue`; anything else is answered ``{"active": false}``.

Usage::

    with Introspection() as endpoint:
        token = endpoint.issue("user-1234")
        ...Dovecot(introspection_url=endpoint.url)...
"""

from __future__ import annotations

import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

from tests.servers.dovecot import free_port


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode("ascii", "replace"))
        token = (form.get("token") or [""])[0]
        user = self.server.owner.lookup(token)
        body = json.dumps({"active": True, "email": user} if user else {"active": False})
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: pytest shows what matters


class _Server(ThreadingHTTPServer):
    owner: Introspection
    daemon_threads = True


class Introspection:
    """The endpoint: a ThreadingHTTPServer thread on 127.0.0.1, a free port."""

    host = "127.0.0.1"

    def __init__(self) -> None:
        self.port = free_port(self.host)
        self._tokens: dict[str, str] = {}
        self._lock = threading.Lock()
        self.asked: list[str] = []  # every token Dovecot asked about, in order
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """Where Dovecot posts the tokens."""
        return f"http://{self.host}:{self.port}/introspect"

    def issue(self, user: str) -> str:
        """A new access token for *user*, active until :meth:`revoke`."""
        token = "ya29." + secrets.token_urlsafe(24)
        with self._lock:
            self._tokens[token] = user
        return token

    def revoke(self, token: str) -> None:
        """Make *token* inactive (an expired or revoked token)."""
        with self._lock:
            self._tokens.pop(token, None)

    def lookup(self, token: str) -> str | None:
        """The user *token* was issued to, or None; remembered in :attr:`asked`."""
        with self._lock:
            self.asked.append(token)
            return self._tokens.get(token)

    def start(self) -> None:
        """Serve on a daemon thread."""
        server = _Server((self.host, self.port), _Handler)
        server.owner = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, name="introspection",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket."""
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Introspection:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
