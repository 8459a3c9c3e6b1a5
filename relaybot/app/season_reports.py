"""The league's reports (T3; seed 002 rules 19, 20), queued by the sweep.

Rule 19: 「途中経過を確認していくために、1か月毎(月末)に対局の進行状況を会議室、または、クラス
幹事に報告する」 and rule 20: 「各クラスで、参加者の中から、クラス幹事を決める」: on the last
day of each of a season's six months (or at the first run after it, while no later month
has ended) each class's secretary (``season new --secretary S=ADDR``) gets the progress of
their class, and the season's TD that of every class: the games finished with their
results, the games in progress with the side to move and the days left on each side.

At the season's end every player of it gets one mail: their class's final standings,
their own outcome and the class they play in next season.

A season remembers the last month reported (``seasons.reported_to``), so the sweep reads
its games once a month; every mail also has a dedupe key (season, month, class, reader),
so a sweep repeated after a crash or a restart never sends one twice.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.season_book import (
    RESTING,
    class_results,
    season_classes,
    season_outcomes,
    season_titles,
)
from relaybot.config import Config
from relaybot.core.clocks import local_day, pending
from relaybot.core.seasons import (
    PROMOTED,
    RELEGATED,
    REST,
    TOP,
    WITHDRAWN,
    letters,
    season_dates,
)
from relaybot.core.text import display_name
from relaybot.mail.queue import Recipient
from relaybot.pipeline.effects import Mail, emit, to_member, to_td
from relaybot.pipeline.lifecycle import load_game
from relaybot.store.models import Game, Member, Season, SeasonPlayer

PROGRESS_KIND = "season_progress"
FINAL_KIND = "season_final"


def report_month(season: Season, today: date) -> tuple[int, date] | None:
    """The month (1 to 6) whose end was the latest on or before ``today``, with that
    day, while the season runs; None before the first month's end."""
    found = None
    for number, end in enumerate(season_dates(season.start_date).month_ends, start=1):
        if end <= today:
            found = (number, end)
    return found


def _secretary(session: Session, cfg: Config, address: str) -> tuple[Recipient, str, str]:
    """A class secretary as a recipient, with their language and name."""
    member = session.scalar(select(Member).where(Member.email == address.strip().lower()))
    if member is not None:
        return to_member(member), member.lang, member.name
    lang = cfg.bot.language
    return Recipient("", address), lang, "クラス幹事" if lang == "ja" else "class secretary"


def _class_progress(session: Session, cfg: Config, games: list[Game], names: dict[int, str],
                    now: datetime) -> dict[str, Any]:
    """Finished and running games of one class (names as stored: the template writes
    them in the reader's language)."""
    finished, running = [], []
    for game in games:
        sente, gote = names[game.side0_id], names[game.side1_id]
        if game.status == "active":
            gf = load_game(session, game, now)
            assert gf.books is not None
            books = gf.books
            # the side to move has been using its days since the last move was relayed
            left = [side.left for side in books.sides]
            left[books.on_move] = pending(books, now).left
            running.append({"id": game.id, "sente": sente, "gote": gote,
                            "moves": game.ply_count, "kind": game.kind,
                            "on_move": books.on_move,
                            "sente_left": left[0], "gote_left": left[1]})
        else:
            finished.append({"id": game.id, "sente": sente, "gote": gote,
                             "result": game.result or "", "kind": game.kind,
                             "termination": game.termination or "", "end": (
                                 game.end_date.isoformat() if game.end_date else "")})
    return {"finished": finished, "running": running}


def progress_reports(session: Session, cfg: Config, now: datetime) -> int:
    """Rule 19: the month's progress of every running season to each class's secretary
    and to the TD; returns how many mails were queued."""
    today = local_day(now, cfg.bot.timezone)
    queued = 0
    for season in session.scalars(select(Season).where(Season.ended_at.is_(None))).all():
        month = report_month(season, today)
        if month is None or today > season.end_date:
            continue  # after the last day the season ends: the final mails say it all
        number, month_end = month
        if season.reported_to is not None and season.reported_to >= month_end:
            continue  # this month's reports are out: no game is read again
        season.reported_to = month_end
        names: dict[int, str] = {m.id: m.name for m in session.scalars(
            select(Member).join(SeasonPlayer, SeasonPlayer.member_id == Member.id)
            .where(SeasonPlayer.season_id == season.id))}
        classes = []
        for cls, event in season_classes(session, season):
            games = list(session.scalars(select(Game).where(Game.event == event.name)
                                         .order_by(Game.created_at, Game.id)))
            classes.append((cls, {"class": cls.letter, "event": event.name,
                                  **_class_progress(session, cfg, games, names, now)}))
        common = {"season": season.name, "month": number, "month_end": month_end.isoformat(),
                  "end": season.end_date.isoformat(),
                  "days_left": (season.end_date - today).days}
        readers: list[tuple[str, list[dict[str, Any]], bool]] = [
            (cls.secretary, [data], True) for cls, data in classes if cls.secretary]
        readers.append((season.td or cfg.bot.td, [data for _, data in classes], False))
        for address, shown, secretary in readers:
            to, lang, reader = (_secretary(session, cfg, address) if secretary
                                else (to_td(cfg, season.td), cfg.bot.language, "TD"))
            tag = shown[0]["class"] if secretary else "all"
            row = emit(session, cfg, Mail(
                kind=PROGRESS_KIND, template="season_progress", audience="td", to=to,
                lang=lang, context={**common, "classes": _named(shown, lang),
                                    "secretary": secretary, "reader": reader},
                dedupe_key=f"{PROGRESS_KIND}:{season.id}:{number}:{tag}:{to.address}"), now)
            queued += row is not None
    return queued


def _named(classes: list[dict[str, Any]], lang: str) -> list[dict[str, Any]]:
    out = []
    for data in classes:
        def name(row: dict[str, Any]) -> dict[str, Any]:
            return {**row, "sente": display_name(row["sente"], lang),
                    "gote": display_name(row["gote"], lang)}
        out.append({**data, "finished": [name(r) for r in data["finished"]],
                    "running": [name(r) for r in data["running"]]})
    return out


def next_class(letter: str, outcome: str, present: list[str]) -> str:
    """The class a player of ``letter`` plays in next season after ``outcome`` (rules
    4-8): one up when promoted, one down when relegated, else the same (a mid-season
    rest is not relegated; one in S drops to A, rule 6)."""
    index = present.index(letter)
    if outcome == PROMOTED and index > 0:
        return present[index - 1]
    if (outcome == RELEGATED or (outcome == REST and letter == TOP)) \
            and index + 1 < len(present):
        return present[index + 1]
    return letter


def final_reports(session: Session, cfg: Config, season: Season, now: datetime) -> int:
    """At the season's end, one mail to every player of it (those sitting it out too):
    their class's final standings, their outcome, their class next season and the
    season's titles. Returns how many were queued."""
    results = class_results(session, season)
    outcome = season_outcomes(session, season)
    present = [letter for letter, _, _ in results] or letters(1)
    titles = season_titles(session, season)
    people = {m.email: m for m in session.scalars(
        select(Member).join(SeasonPlayer, SeasonPlayer.member_id == Member.id)
        .where(SeasonPlayer.season_id == season.id))}
    readers: list[tuple[Member, str, str]] = []  # member, class, outcome
    for letter, _, rows in results:
        for r in rows:
            readers.append((people[r["email"]], letter, outcome.get(r["email"], "stays")))
    for p in session.scalars(select(SeasonPlayer).where(
            SeasonPlayer.season_id == season.id, SeasonPlayer.state == RESTING)):
        member = session.get(Member, p.member_id)
        assert member is not None
        readers.append((member, p.letter, RESTING))
    by_class = {letter: rows for letter, _, rows in results}
    queued = 0
    for member, letter, mine in readers:
        lang = member.lang
        rows = [{"rank": r["rank"], "name": display_name(r["name"], lang),
                 "wins": f"{r['wins']:g}", "losses": r["losses"], "draws": r["draws"],
                 "outcome": outcome.get(r["email"], "stays"),
                 "me": r["email"] == member.email}
                for r in by_class.get(letter, [])]
        place = ("" if mine == WITHDRAWN else letter if mine == RESTING
                 else next_class(letter, mine, present))
        context = {"reader": member.name, "season": season.name, "class": letter,
                   "rows": rows, "outcome": mine,
                   "next_class": place, "end": season.end_date.isoformat(),
                   "titles": [{"name": display_name(people[t["email"]].name, lang)
                               if t["email"] in people else t["email"],
                               "title": t["title"]} for t in titles]}
        row = emit(session, cfg, Mail(
            kind=FINAL_KIND, template="season_final", audience="member",
            to=to_member(member), lang=lang, context=context,
            dedupe_key=f"{FINAL_KIND}:{season.id}:{member.id}"), now)
        queued += row is not None
    return queued
