"""The Starlette application of ``relaybot web`` and the command that serves it.

Pages: ``/`` (events and games), ``/games/<id>`` (``?side=0|1``: the board from that
side's seat, with a replay of its moves), ``/games/<id>/board/<ply>`` (the picture of
the position after that many plies, as the mail draws it; ``?form=text``: the board
as text), ``/games/<id>/record`` (the
record file), ``/static/replay.js`` (the replay's script), ``/events/<name>`` (the name
URL-encoded), ``/seasons/<name>`` (a season of the shogi league), ``/ladder/<game>`` (a
game's ladder) and ``/ratings/<game>`` (its rating list; go: the salon's points), all
linked from ``/``, ``/players/<id>`` and
``/players/<id>/calendar.ics``, ``/help`` (the players' guide). The language is
``?lang=ja|en`` (remembered in a cookie), else the browser's Accept-Language, else
``[bot] language``. ``POST /unsubscribe/<member>/<token>`` is RFC 8058's one-click
unsubscribe of the weekly digest; its GET only shows a button that posts it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.resources import files
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.types import ExceptionHandler

from relaybot.app.logs import configure as configure_logging
from relaybot.club.key_rotation import live_keys
from relaybot.club.views import UNSUBSCRIBE_SCOPE
from relaybot.config import Config
from relaybot.core import tokens
from relaybot.core.text import display_name
from relaybot.mail.render import LANGS, render_html
from relaybot.store.db import Store
from relaybot.store.models import Event, Game, Member
from relaybot.web import data, game_data, member_data
from relaybot.web.calendar import feed
from relaybot.web.guide import guide_html
from relaybot.web.request_log import RequestLog
from relaybot.web.season import find_season_named, season_page

LANG_COOKIE = "lang"
# the pages' own files (no CDN: a reader's browser fetches nothing from elsewhere)
STATIC = {"replay.js": ((files("relaybot.web") / "static" / "replay.js").read_bytes(),
                        "text/javascript; charset=utf-8")}
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


def switch_link(request: Request, lang: str) -> str:
    """The same page in ``lang``: its path percent-encoded (an event's name is in it,
    spaces, kanji, ``#`` and all) with the other query parameters kept (the board seen
    from Black's side stays so)."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    return quote(request.scope["path"], safe="/") + "?" + urlencode([*kept, ("lang", lang)])


@dataclass(frozen=True)
class Site:
    """What every handler shares: the configuration, the store and "now"; it answers
    with a page in the reader's language."""

    cfg: Config
    store: Store
    now: Callable[[], datetime]

    def lang(self, request: Request) -> str:
        """The reader's language (:func:`choose_lang`, ``[bot] language`` the default)."""
        return choose_lang(request, self.cfg.bot.language)

    def page(self, request: Request, name: str, http_status: int = 200, /,
             **context: Any) -> Response:
        """The template ``name`` in the reader's language, with a link to the other one;
        a ``?lang=`` asked for is remembered in a cookie."""
        lang = self.lang(request)
        other = "en" if lang == "ja" else "ja"
        html = render_html(lang, name, path=request.url.path, other_lang=other,
                           club=self.cfg.bot.name, switch=switch_link(request, other),
                           **context)
        response = HTMLResponse(html, status_code=http_status)
        if request.query_params.get("lang") in LANGS:
            response.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
        response.headers["Content-Language"] = lang
        return response

    def missing(self, request: Request, hint: str = "") -> Response:
        """The page that is not there, in the reader's language with a way home;
        ``hint`` names what the reader was after (``unsubscribe``: a link from a mail)."""
        return self.page(request, "missing", 404, hint=hint)


def create_app(cfg: Config, store: Store, *, clock: Any = None) -> Starlette:
    """The web application over ``store``; ``clock()`` gives "now" (tests fix it)."""
    site = Site(cfg, store, clock or (lambda: datetime.now(UTC)))
    routes = [*club_routes(site), *game_routes(site), *member_routes(site)]
    return Starlette(routes=routes, middleware=[Middleware(RequestLog)],
                     exception_handlers=error_handlers(site))


def error_handlers(site: Site) -> dict[Any, ExceptionHandler]:
    """Starlette's exception handlers: a path no route knows gets the site's own page."""

    async def not_found(request: Request, exc: Exception) -> Response:
        # a path no route knows (a mistyped or cut link): the same page, not Starlette's
        # bare English "Not Found"
        return site.missing(request)

    return {404: not_found}


def club_routes(site: Site) -> list[Route]:
    """The club's public pages: the front page, events, seasons, ladders, rating lists
    and the players' guide."""

    async def home(request: Request) -> Response:
        with site.store.session() as session:
            return site.page(request, "home", **data.home(session, site.lang(request),
                                                          site.now()))

    async def event(request: Request) -> Response:
        with site.store.session() as session:
            name = request.path_params["name"]
            row = None if "\x00" in name else session.scalar(
                select(Event).where(Event.name == name))
            if row is None:
                return site.missing(request)
            return site.page(request, "event", **data.event_page(
                session, row, site.lang(request), site.now()))

    async def season(request: Request) -> Response:
        with site.store.session() as session:
            row = find_season_named(session, request.path_params["name"])
            if row is None:
                return site.missing(request)
            return site.page(request, "season", **season_page(
                session, row, site.lang(request), site.now()))

    async def ladder(request: Request) -> Response:
        """Issue 30: a game's ladder (梯子段), top first: names only, no address."""
        from relaybot.club.ladders import ladder_order

        kind = request.path_params["kind"]
        with site.store.session() as session:
            order = ladder_order(session, kind) if kind in ("chess", "shogi", "go") else []
            if not order:
                return site.missing(request)
            lang = site.lang(request)
            return site.page(request, "ladder", kind=kind, rungs=[
                {"place": n, "id": m.id, "name": display_name(m.name, lang)}
                for n, m in enumerate(order, start=1)])

    async def ratings(request: Request) -> Response:
        """A game's rating list, highest first (go: the salon's points and ranks)."""
        with site.store.session() as session:
            listed = data.ratings_page(session, request.path_params["kind"],
                                       site.lang(request))
        if listed is None:
            return site.missing(request)
        return site.page(request, "ratings", **listed)

    async def guide(request: Request) -> Response:
        """The players' guide in the reader's language (docs/players.md's text)."""
        return site.page(request, "help", guide=Markup(guide_html(site.lang(request))))

    return [Route("/", home), Route("/events/{name:path}", event),
            Route("/seasons/{name:path}", season), Route("/ladder/{kind}", ladder),
            Route("/ratings/{kind}", ratings), Route("/help", guide)]


def game_routes(site: Site) -> list[Route]:
    """A game's pages: the board and its replay, each position's picture, the record
    file; and the replay's script."""

    async def game(request: Request) -> Response:
        viewer = 1 if request.query_params.get("side", "0") == "1" else 0
        with site.store.session() as session:
            row = _game(session, request)
            if row is None:
                return site.missing(request)
            return site.page(request, "game", **game_data.game_page(
                session, site.cfg, row, site.lang(request), viewer, site.now()))

    async def board(request: Request) -> Response:
        text = request.path_params["ply"]
        viewer = 1 if request.query_params.get("side") == "1" else 0
        with site.store.session() as session:
            row = _game(session, request)
            if row is None or not (text.isascii() and text.isdigit() and len(text) < 6):
                return site.missing(request)
            as_text = request.query_params.get("form") == "text"
            drawn = game_data.board_image(row, int(text), viewer,
                                          site.lang(request) if as_text else "")
        if drawn is None:
            return site.missing(request)
        body, media = drawn
        # a picture: never a page of its own (an SVG opened alone runs no script)
        return Response(body, media_type=media, headers={
            "Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'"})

    async def record(request: Request) -> Response:
        with site.store.session() as session:
            row = _game(session, request)
            if row is None:
                return site.missing(request)
            file = game_data.record_download(session, site.cfg, row)
        return Response(file["text"], media_type="text/plain; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{file["name"]}"'})

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return site.missing(request)
        return Response(STATIC[name][0], media_type=STATIC[name][1],
                        headers={"Cache-Control": "public, max-age=3600",
                                 "X-Content-Type-Options": "nosniff"})

    return [Route("/games/{id}", game), Route("/games/{id}/record", record),
            Route("/games/{id}/board/{ply}", board), Route("/static/{name}", static)]


def member_routes(site: Site) -> list[Route]:
    """A member's pages: the player's page, their calendar feed and the digest's
    one-click unsubscribe (RFC 8058)."""

    async def player(request: Request) -> Response:
        with site.store.session() as session:
            member = _member(session, request)
            if member is None:
                return site.missing(request)
            return site.page(request, "player", **member_data.player_page(
                session, member, site.lang(request), site.now()))

    async def calendar(request: Request) -> Response:
        with site.store.session() as session:
            member = _member(session, request)
            if member is None:
                return site.missing(request)
            moment = site.now()
            body = feed(site.cfg, display_name(member.name, member.lang), member.lang,
                        member_data.deadlines(session, member, moment), moment)
        return Response(body, media_type="text/calendar; charset=utf-8")

    def _unsubscriber(session: Any, request: Request) -> Member | None:
        member = _member(session, request)
        token = request.path_params["token"]
        keys = live_keys(session, site.cfg, site.now()).bot.token_keys()  # the old key: 30 days
        if member is None or not tokens.verify(keys, UNSUBSCRIBE_SCOPE, str(member.id), token):
            return None
        return member

    async def unsubscribe(request: Request) -> Response:
        with site.store.session() as session:
            member = _unsubscriber(session, request)
            if member is None:  # an old or cut link: say how else to stop the digest
                return site.missing(request, "unsubscribe")
            if request.method == "POST":
                # RFC 8058: the POST alone unsubscribes (its body is List-Unsubscribe=One-Click)
                member.digest = "off"
                return site.page(request, "unsubscribe", done=True, name=member.name)
            return site.page(request, "unsubscribe", done=member.digest == "off",
                             name=member.name)

    return [Route("/players/{id}", player), Route("/players/{id}/calendar.ics", calendar),
            Route("/unsubscribe/{id}/{token}", unsubscribe, methods=["GET", "POST"])]


def _game(session: Any, request: Request) -> Game | None:
    """The game the path's ``{id}`` names, None when there is none."""
    game_id = request.path_params["id"]
    if "\x00" in game_id:  # PostgreSQL refuses NUL in text: an error, not a miss
        return None
    return session.get(Game, game_id)  # type: ignore[no-any-return]


def _member(session: Any, request: Request) -> Member | None:
    """The member the path's ``{id}`` names, None when there is none."""
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


def serve(cfg: Config, store: Store, host: str, port: int) -> None:
    """Serve the pages until interrupted (uvicorn), logging in relaybot's form: one
    line per request (:class:`RequestLog`), uvicorn's own access log off and its other
    lines through relaybot's handler."""
    import uvicorn

    configure_logging(cfg.log.level, cfg.log.format)
    uvicorn.run(create_app(cfg, store), host=host, port=port, log_config=None,
                access_log=False, log_level="info")
