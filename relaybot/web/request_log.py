"""One log line per request of ``relaybot web``, in relaybot's own log form, with the
credentials a path may carry left out."""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from relaybot.app.logs import event

LOG = logging.getLogger("relaybot.web")


class RequestLog:
    """One log line per request in relaybot's own form (``relaybot.app.logs``: text or
    JSON, ``[log] format``): method, path (an unsubscribe link's token left out),
    status and milliseconds, under the logger ``relaybot.web``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = [500]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            event(LOG, "request", method=scope.get("method", ""),
                  path=logged_path(scope.get("path", "")), status=status[0],
                  ms=round((time.perf_counter() - started) * 1000, 1))


def logged_path(path: str) -> str:
    """The path as the log shows it: an unsubscribe link's token is a credential."""
    if path.startswith("/unsubscribe/"):
        return "/".join(path.split("/")[:3]) + "/…"
    return path
