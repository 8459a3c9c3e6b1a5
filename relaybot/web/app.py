"""The Starlette application of ``relaybot web`` and the command that serves it.

Pages: ``/`` (events and games), ``/games/<id>`` (``?side=0|1``: the board from that
side's seat), ``/games/<id>/record`` (the record file), ``/events/<name>`` (the name
URL-encoded), ``/players/<id>`` and ``/players/<id>/calendar.ics``. The language is
``?lang=ja|en`` (remembered in a cookie), else the browser's Accept-Language, else
``[bot] language``. ``POST /unsubscribe/<member>/<token>`` is RFC 8058's one-click
unsubscribe of the weekly digest; its GET only shows a button that posts it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.text import display_name
from relaybot.mail.render import LANGS, render_html
from relaybot.store.db import Store
from relaybot.store.models import Event, Game, Member
from relaybot.views import UNSUBSCRIBE_SCOPE
from relaybot.web import data
from relaybot.web.calendar import feed

LANG_COOKIE = "lang"
MAX_ID = 2**31 - 1  # the largest id the members table holds (INTEGER)


def choose_lang(request: Request, default: str) -> str:
    """``?lang=``, then the cookie, then the best of Accept-Language, then ``default``."""
    asked = request.query_params.get("lang") or request.cookies.get(LANG_COOKIE)
    if asked in LANGS:
        return asked
    best: tuple[float, str] | None = None
    for item in request.headers.get("accept-language", "").split(","):
        tag, _, params = item.strip().partition(";")
        lang = tag.strip().lower().split("-")[0]
        if lang not in LANGS:
            continue
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        if best is None or quality > best[0]:
            best = (quality, lang)
    return best[1] if best else (default if default in LANGS else "en")


def create_app(cfg: Config, store: Store, *, clock: Any = None) -> Starlette:
    """The web application over ``store``; ``clock()`` gives "now" (tests fix it)."""
    now = clock or (lambda: datetime.now(UTC))

    def page(request: Request, name: str, http_status: int = 200, /,
             **context: Any) -> Response:
        lang = choose_lang(request, cfg.bot.language)
        other = "en" if lang == "ja" else "ja"
        html = render_html(lang, name, path=request.url.path, other_lang=other,
                           switch=f"{request.url.path}?lang={other}", **context)
        response = HTMLResponse(html, status_code=http_status)
        if request.query_params.get("lang") in LANGS:
            response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
        response.headers["Content-Language"] = lang
        return response

    def missing(request: Request) -> Response:
        return page(request, "missing", 404)

    async def home(request: Request) -> Response:
        lang = choose_lang(request, cfg.bot.language)
        with store.session() as session:
            return page(request, "home", **data.home(session, lang))

    async def game(request: Request) -> Response:
        lang = choose_lang(request, cfg.bot.language)
        side = request.query_params.get("side", "0")
        viewer = 1 if side == "1" else 0
        with store.session() as session:
            row = _game(session, request)
            if row is None:
                return missing(request)
            return page(request, "game", **data.game_page(session, cfg, row, lang, viewer,
                                                          now()))

    async def record(request: Request) -> Response:
        with store.session() as session:
            row = _game(session, request)
            if row is None:
                return missing(request)
            file = data.record_download(session, cfg, row)
        return Response(file["text"], media_type="text/plain; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{file["name"]}"'})

    async def event(request: Request) -> Response:
        lang = choose_lang(request, cfg.bot.language)
        with store.session() as session:
            name = request.path_params["name"]
            row = None if "\x00" in name else session.scalar(
                select(Event).where(Event.name == name))
            if row is None:
                return missing(request)
            return page(request, "event", **data.event_page(session, row, lang))

    async def ladder(request: Request) -> Response:
        """Issue 30: a game's ladder (梯子段), top first: names only, no address."""
        from relaybot.club import ladder_order

        kind = request.path_params["kind"]
        with store.session() as session:
            order = ladder_order(session, kind) if kind in ("chess", "shogi", "go") else []
            if not order:
                return missing(request)
            lang = choose_lang(request, cfg.bot.language)
            return page(request, "ladder", kind=kind, rungs=[
                {"place": n, "id": m.id, "name": display_name(m.name, lang)}
                for n, m in enumerate(order, start=1)])

    def _game(session: Any, request: Request) -> Game | None:
        game_id = request.path_params["id"]
        if "\x00" in game_id:  # PostgreSQL refuses NUL in text: an error, not a miss
            return None
        return session.get(Game, game_id)  # type: ignore[no-any-return]

    def _member(session: Any, request: Request) -> Member | None:
        text = request.path_params["id"]
        # ASCII digits alone (int() also takes "+1", " 1", "1_0" and other scripts'
        # digits), within the column's range (a 32-bit integer in PostgreSQL; a larger
        # number is an error, not a miss, in every database): anything else is no one
        if not (text.isascii() and text.isdigit() and len(text) <= 10):
            return None
        member_id = int(text)
        if not 1 <= member_id <= MAX_ID:
            return None
        return session.get(Member, member_id)  # type: ignore[no-any-return]

    async def player(request: Request) -> Response:
        lang = choose_lang(request, cfg.bot.language)
        with store.session() as session:
            member = _member(session, request)
            if member is None:
                return missing(request)
            return page(request, "player", **data.player_page(session, member, lang))

    async def calendar(request: Request) -> Response:
        with store.session() as session:
            member = _member(session, request)
            if member is None:
                return missing(request)
            moment = now()
            body = feed(cfg, display_name(member.name, member.lang), member.lang,
                        data.deadlines(session, member, moment), moment)
        return Response(body, media_type="text/calendar; charset=utf-8")

    def _unsubscriber(session: Any, request: Request) -> Member | None:
        member = _member(session, request)
        token = request.path_params["token"]
        if member is None or not tokens.verify(cfg.bot.token_keys(), UNSUBSCRIBE_SCOPE,
                                               str(member.id), token):
            return None
        return member

    async def unsubscribe(request: Request) -> Response:
        with store.session() as session:
            member = _unsubscriber(session, request)
            if member is None:
                return missing(request)
            if request.method == "POST":
                # RFC 8058: the POST alone unsubscribes (its body is List-Unsubscribe=One-Click)
                member.digest = "off"
                return page(request, "unsubscribe", done=True, name=member.name)
            return page(request, "unsubscribe", done=member.digest == "off", name=member.name)

    routes = [
        Route("/", home),
        Route("/games/{id}", game),
        Route("/games/{id}/record", record),
        Route("/events/{name:path}", event),
        Route("/ladder/{kind}", ladder),
        Route("/players/{id}", player),
        Route("/players/{id}/calendar.ics", calendar),
        Route("/unsubscribe/{id}/{token}", unsubscribe, methods=["GET", "POST"]),
    ]
    return Starlette(routes=routes)


def serve(cfg: Config, store: Store, host: str, port: int) -> None:
    """Serve the pages until interrupted (uvicorn)."""
    import uvicorn

    uvicorn.run(create_app(cfg, store), host=host, port=port, log_level="info")
