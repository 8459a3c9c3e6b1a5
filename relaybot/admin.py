"""What an operator or TD does from the CLI: members and games."""

from __future__ import annotations

import csv
import io
import re
import secrets
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.config import ADDRESS_RE, Config
from relaybot.games import rules_for
from relaybot.store.models import Game, Member

GAME_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud, typed by hand
TIME_CONTROL_RE = re.compile(r"^(\d+/\d+|bank:\d+|fischer:\d+\+\d+(?::\d+)?)(,max:\d+)?$")


class AdminError(ValueError):
    """An operator mistake; the message is one line."""


@dataclass(frozen=True)
class MemberInput:
    name: str
    email: str
    lang: str | None = None
    tz: str | None = None
    rating: int | None = None
    notation: str | None = None


def _validate_member(cfg: Config, m: MemberInput, where: str = "") -> Member:
    prefix = f"{where}: " if where else ""
    name = " ".join(m.name.split())
    if not name:
        raise AdminError(f"{prefix}--name is empty")
    email = m.email.strip().lower()
    if not ADDRESS_RE.match(email):
        raise AdminError(f"{prefix}--email is not a mail address: {m.email!r}")
    lang = m.lang or cfg.bot.language
    if lang not in ("ja", "en"):
        raise AdminError(f"{prefix}--lang must be ja or en, not {lang!r}")
    tz = m.tz or cfg.bot.timezone
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise AdminError(f"{prefix}--tz: unknown time zone {tz!r}") from None
    notation = m.notation or "san"
    letters = "en"
    if notation.startswith("san:"):
        notation, letters = "san", notation[4:]
    if notation not in ("san", "numeric") or letters not in ("en", "de", "fr", "es"):
        raise AdminError(f"{prefix}--notation must be san or numeric, not {m.notation!r}")
    if m.rating is not None and not 0 <= m.rating <= 4000:
        raise AdminError(f"{prefix}--rating must be between 0 and 4000, not {m.rating}")
    return Member(name=name, email=email, lang=lang, tz=tz, rating=m.rating,
                  notation=notation, letters=letters)


def add_member(session: Session, cfg: Config, m: MemberInput, now: datetime) -> Member:
    """Register one member; a second member with the same address is refused."""
    member = _validate_member(cfg, m)
    if session.scalar(select(Member).where(Member.email == member.email)) is not None:
        raise AdminError(f"a member with address {member.email} already exists")
    member.created_at = now
    session.add(member)
    session.flush()
    return member


def import_members(session: Session, cfg: Config, path: Path, now: datetime) -> list[Member]:
    """Add every row of a CSV (header name,email,lang,tz,rating,notation); all or nothing."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise AdminError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise AdminError(f"{path} is not UTF-8 text") from None
    reader = csv.DictReader(io.StringIO(text))
    required = {"name", "email"}
    if reader.fieldnames is None or not required <= set(reader.fieldnames):
        raise AdminError(f"{path}: header must be name,email,lang,tz,rating,notation")
    members: list[Member] = []
    seen: set[str] = set()
    for number, row in enumerate(reader, start=2):
        where = f"{path}:{number}"
        rating_text = (row.get("rating") or "").strip()
        try:
            rating = int(rating_text) if rating_text else None
        except ValueError:
            raise AdminError(f"{where}: rating is not a number: {rating_text!r}") from None
        member = _validate_member(cfg, MemberInput(
            name=row.get("name") or "", email=row.get("email") or "",
            lang=(row.get("lang") or "").strip() or None, tz=(row.get("tz") or "").strip() or None,
            rating=rating, notation=(row.get("notation") or "").strip() or None,
        ), where)
        if member.email in seen or session.scalar(
            select(Member.id).where(Member.email == member.email)
        ) is not None:
            raise AdminError(f"{where}: a member with address {member.email} already exists")
        seen.add(member.email)
        member.created_at = now
        members.append(member)
    session.add_all(members)
    session.flush()
    return members


def find_member(session: Session, email: str) -> Member:
    """The member with this address, or an AdminError naming it."""
    member = session.scalar(select(Member).where(Member.email == email.strip().lower()))
    if member is None:
        raise AdminError(
            f"no member with address {email.strip()} (add one with: relaybot member add)"
        )
    return member


def new_game_id(session: Session) -> str:
    """A short random id, unique in the store."""
    while True:
        candidate = "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(6))
        if session.get(Game, candidate) is None:
            return candidate


@dataclass(frozen=True)
class GameInput:
    white: str
    black: str
    event: str | None = None
    time_control: str = "10/30"
    start: date | None = None
    conditionals: str = "binding"
    notation: str | None = None
    kind: str = "chess"
    overrun: str = "report"


def create_game(session: Session, cfg: Config, g: GameInput, now: datetime) -> Game:
    """Create a game between two members; the caller queues the start mails."""
    white, black = find_member(session, g.white), find_member(session, g.black)
    if white.id == black.id:
        raise AdminError("--white and --black are the same member")
    if not TIME_CONTROL_RE.match(g.time_control):
        raise AdminError(
            f"--time-control {g.time_control!r} not understood (10/30, 10/50, bank:20, ...)"
        )
    if g.conditionals not in ("binding", "optional", "off"):
        raise AdminError(f"--conditionals must be binding, optional or off, not {g.conditionals!r}")
    if g.overrun not in ("report", "forfeit"):
        raise AdminError(f"--overrun must be report or forfeit, not {g.overrun!r}")
    if g.notation not in (None, "san", "numeric"):
        raise AdminError(f"--notation must be san or numeric, not {g.notation!r}")
    rules = rules_for(g.kind)
    start_position = rules.save(rules.start())
    pair = (Game.side0_id.in_([white.id, black.id])) & (Game.side1_id.in_([white.id, black.id]))
    label = chr(ord("A") + (session.scalar(select(func.count(Game.id)).where(pair)) or 0) % 26)
    game = Game(
        id=new_game_id(session), kind=g.kind, event=g.event, round="-",
        side0_id=white.id, side1_id=black.id, time_control=g.time_control,
        conditionals=g.conditionals, notation=g.notation,
        start_date=g.start or now.astimezone(ZoneInfo(cfg.bot.timezone)).date(),
        status="active", plies="", ply_count=0, position=start_position,
        side0_rating=white.rating, side1_rating=black.rating, label=label, overrun=g.overrun,
        created_at=now, updated_at=now,
    )
    session.add(game)
    session.flush()
    return game
