"""The club's members as the operator or a TD keeps them from the CLI: adding one
(``member add``) or a CSV of them (``member import``), changing one (``member set``: their
ratings, titles and other addresses), and finding one by any of their addresses.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.club.rating_book import KINDS, RatingInput, set_rating
from relaybot.config import ADDRESS_RE, Config, is_bot_mailbox
from relaybot.core.names import PersonName
from relaybot.core.ratings import rank_points, title_name
from relaybot.store.models import Member, MemberAddress, MemberTitle

# R4: salon points live in a much smaller range than JCCA ratings
RATING_RANGE = {"chess": (0, 4000), "shogi": (0, 4000), "go": (0, 1000)}
PROVISIONAL_WORDS = {"1": True, "yes": True, "y": True, "true": True, "provisional": True,
                     "0": False, "no": False, "n": False, "false": False, "official": False}


@dataclass(frozen=True)
class MemberInput:
    """A member as the operator gives it; the rating is for ``game`` (default chess).

    ``rating`` without ``provisional`` is an official rating (R1: a TD-set value, e.g. an
    existing JCCA member's), never replaced by Rb (R2). ``rank`` sets go points from the
    salon's table instead of ``rating`` (R4).
    """

    name: str
    email: str
    lang: str | None = None
    tz: str | None = None
    rating: int | None = None
    notation: str | None = None
    provisional: bool = False
    game: str | None = None
    rank: str | None = None
    titles: tuple[str, ...] = ()  # R3: titles won (added), as title_name reads them
    drop_titles: tuple[str, ...] = ()  # R3: titles entered by mistake (one of each removed)
    born: int | None = None  # seed 004 section 6: the year of birth (secretaries skip 70+)
    serves: bool | None = None  # seed 004 section 6: a member of 70 or more who will serve
    # issue 26: the name in Japanese script (早川悟), what a Japanese reader sees; None
    # leaves it alone (``member set``), "" removes it
    name_ja: str | None = None


def _titles(words: tuple[str, ...], prefix: str) -> list[str]:
    try:
        return [title_name(w) for w in words]
    except ValueError as exc:
        raise AdminError(f"{prefix}--title: {exc}") from None


def set_titles(session: Session, member: Member, add: tuple[str, ...],
               drop: tuple[str, ...] = ()) -> None:
    """R3 title points (seed 000 称号点数): add titles won (日本チャンピオン once per time
    won; ICCF IM, SIM, GM once each), remove ones entered by mistake. ``member`` has an id.
    """
    held = list(session.scalars(select(MemberTitle).where(
        MemberTitle.member_id == member.id).order_by(MemberTitle.id)))
    for title in _titles(drop, ""):
        row = next((t for t in reversed(held) if t.title == title), None)
        if row is None:
            raise AdminError(f"--drop-title: {member.name} holds no {title}")
        held.remove(row)
        session.delete(row)
    for title in _titles(add, ""):
        if title != "japan_champion" and any(t.title == title for t in held):
            raise AdminError(f"--title: {member.name} already holds {title} "
                             f"(an ICCF title counts once)")
        row = MemberTitle(member_id=member.id, title=title)
        session.add(row)
        held.append(row)


def parse_rating(text: str, where: str = "--rating") -> tuple[int, bool]:
    """``"1850"`` -> (1850, official); ``"(1320)"`` -> (1320, provisional), as R2 prints it."""
    value = text.strip()
    provisional = value.startswith("(") and value.endswith(")")
    if provisional:
        value = value[1:-1].strip()
    try:
        return int(value), provisional
    except ValueError:
        raise AdminError(f"{where} is not a number: {text.strip()!r}") from None


def parse_provisional(text: str, where: str = "provisional") -> bool:
    """A CSV ``provisional`` cell: empty or 0/no/false is official, 1/yes/true provisional."""
    value = text.strip().lower()
    if not value:
        return False
    if value not in PROVISIONAL_WORDS:
        raise AdminError(f"{where} must be yes or no (1/0, true/false), not {text.strip()!r}")
    return PROVISIONAL_WORDS[value]


def _validate_rating(m: MemberInput, prefix: str, declared: bool = False
                     ) -> RatingInput | None:
    """The rating to store for ``m``, checked; None when it gives none.

    Go (seed 004 sections 2, 3): points from a declared rank (``--rank``) are the office's
    provisional starting figure, and so are the points a new member declares
    (``declared``: ``member add``); the chair's figure (``member set --rating``) is
    official unless ``--provisional``."""
    game = (m.game or ("go" if m.rank is not None else "chess")).strip().lower()
    if game not in KINDS:
        raise AdminError(f"{prefix}--game must be one of {', '.join(KINDS)}, not {game!r}")
    if m.rank is not None:
        if game != "go":
            raise AdminError(f"{prefix}--rank is a go rank; it goes with --game go, not {game}")
        if m.rating is not None:
            raise AdminError(f"{prefix}give --rating or --rank, not both")
        try:
            points = rank_points(m.rank)
        except ValueError as exc:
            raise AdminError(f"{prefix}--rank: {exc}") from None
        rating = points
    elif m.rating is None:
        if m.provisional:
            raise AdminError(f"{prefix}--provisional goes with --rating")
        return None  # --game alone: the member stays unrated in that game (no row)
    else:
        rating = m.rating
    low, high = RATING_RANGE[game]
    if not low <= rating <= high:
        raise AdminError(f"{prefix}--rating for {game} must be between {low} and {high},"
                         f" not {rating}")
    provisional = m.provisional or (game == "go" and (m.rank is not None or declared))
    return RatingInput(game, rating, provisional)


def _check_born(m: MemberInput, prefix: str = "", now: datetime | None = None) -> None:
    """A year of birth from 1880 to this year (``now``'s, the clock of ``--now``): a year
    still to come is a typing mistake (seed 004 section 6 counts ages from it)."""
    latest = now.year if now is not None else 2100
    if m.born is not None and not 1880 <= m.born <= latest:
        raise AdminError(f"{prefix}--born is a year of birth (YYYY), not {m.born}")


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
    return Member(name=name, name_ja=_name_ja(m.name_ja or ""), email=email, lang=lang,
                  tz=tz, notation=notation, letters=letters)


def _not_the_bot(cfg: Config, email: str, prefix: str = "") -> None:
    """A member at the bot's own address (``relay@`` or one of its plus addresses) would
    have every mail to them come back to the bot, which answers none of its own (G7):
    their games would stall unseen. Refused with one line."""
    if is_bot_mailbox(email, cfg.bot.address):
        raise AdminError(f"{prefix}--email {email} is the bot's own address "
                         f"({cfg.bot.address}); a member needs an address of their own")


def td_address(cfg: Config, text: str | None) -> str | None:
    """An event's or a season's ``--td`` as stored: a mail address, lower case, that is
    not the bot's own (every TD report sent there would come back to the bot, which
    answers none of its own mail, as ``[bot] td``'s check says); None when not given."""
    if not text:
        return None
    td = text.strip().lower()
    if not ADDRESS_RE.match(td):
        raise AdminError(f"--td is not a mail address: {text!r}")
    if is_bot_mailbox(td, cfg.bot.address):
        raise AdminError(f"--td {td} is the bot's own address ({cfg.bot.address}); the TD "
                         "needs an address of their own")
    return td


def _name_ja(text: str) -> str:
    """The Japanese-script name as Japanese writes it: ``早川, 悟`` (the ``--name`` form)
    is ``早川悟``; ``早川 悟`` keeps its space, as some write it."""
    return PersonName.parse(text).plain()


def add_member(session: Session, cfg: Config, m: MemberInput, now: datetime) -> Member:
    """Register one member (with a rating for one game kind, if given); a second member
    with the same address is refused."""
    member = _validate_member(cfg, m)
    _not_the_bot(cfg, member.email)
    rating = _validate_rating(m, "", declared=True)
    _check_born(m, now=now)
    if session.scalar(select(Member).where(Member.email == member.email)) is not None:
        raise AdminError(f"a member with address {member.email} already exists")
    member.created_at = now
    member.born, member.serves = m.born, int(bool(m.serves))
    session.add(member)
    session.flush()
    if rating is not None:
        set_rating(session, member, rating)
        session.flush()
    if m.titles:
        set_titles(session, member, m.titles)
        session.flush()
    return member


def update_member(session: Session, cfg: Config, member: Member, m: MemberInput,
                  now: datetime | None = None) -> None:
    """``member set``: change what ``m`` gives (None and False leave a field alone).

    ``m.email`` is ignored: the address names the member. A rating changes only the
    row of its game kind (ratings are per member and game).
    """
    current = MemberInput(
        name=m.name or member.name, email=member.email, lang=m.lang or member.lang,
        tz=m.tz or member.tz,
        notation=m.notation or (member.notation if member.letters == "en"
                                else f"san:{member.letters}"))
    checked = _validate_member(cfg, current)
    rating = _validate_rating(m, "")
    _check_born(m, now=now)
    member.name, member.lang, member.tz = checked.name, checked.lang, checked.tz
    if m.name_ja is not None:
        member.name_ja = _name_ja(m.name_ja)
    if m.born is not None:
        member.born = m.born
    if m.serves is not None:
        member.serves = int(m.serves)
    member.notation, member.letters = checked.notation, checked.letters
    if rating is not None:
        set_rating(session, member, rating)
    set_titles(session, member, m.titles, m.drop_titles)
    session.flush()


def _free_address(session: Session, address: str, option: str) -> str:
    """``address`` checked and lower-cased; an AdminError if it is malformed or already
    any member's (an address names one member only: mail from it acts for them)."""
    checked = address.strip().lower()
    if not ADDRESS_RE.match(checked):
        raise AdminError(f"{option} is not a mail address: {address!r}")
    taken = session.scalar(select(Member.id).where(Member.email == checked)) is not None or \
        session.scalar(select(MemberAddress.id).where(MemberAddress.address == checked)) \
        is not None
    if taken:
        raise AdminError(f"{option}: {checked} is already a member's address")
    return checked


def add_address(session: Session, member: Member, address: str, now: datetime) -> str:
    """Register another address the member writes from (a phone's, seed 000): mail from
    it is the member's, and its replies are authenticated by the member's own tokens."""
    checked = _free_address(session, address, "--add-address")
    session.add(MemberAddress(member_id=member.id, address=checked, created_at=now))
    session.flush()
    return checked


def remove_address(session: Session, member: Member, address: str) -> None:
    """Forget one of the member's other addresses (not the main one: change that with
    ``--email``)."""
    row = session.scalar(select(MemberAddress).where(
        MemberAddress.member_id == member.id,
        MemberAddress.address == address.strip().lower()))
    if row is None:
        raise AdminError(f"--remove-address: {address.strip()} is not one of "
                         f"{member.name}'s other addresses")
    session.delete(row)
    session.flush()


def change_email(session: Session, member: Member, address: str) -> None:
    """Move the member's main address (where the bot writes) to ``address``; the member's
    games, ratings and history stay theirs (they hang on the member, not the address).
    If ``address`` was one of their other addresses it becomes the main one."""
    checked = address.strip().lower()
    mine = session.scalar(select(MemberAddress).where(
        MemberAddress.member_id == member.id, MemberAddress.address == checked))
    if mine is not None:
        session.delete(mine)
        session.flush()
    elif checked != member.email:
        checked = _free_address(session, address, "--email")
    member.email = checked
    session.flush()


def member_addresses(session: Session, member: Member) -> list[str]:
    """The member's other registered addresses, in the order they were added."""
    return list(session.scalars(select(MemberAddress.address).where(
        MemberAddress.member_id == member.id).order_by(MemberAddress.id)))


def read_csv_text(path: Path) -> tuple[str, str]:
    """The text of a members CSV and the encoding it was in: UTF-8 (with or without a
    BOM) or, as Excel in Japan saves it, Shift_JIS (cp932)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise AdminError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as utf8:
        try:
            return data.decode("cp932"), "cp932"
        except UnicodeDecodeError:
            line = data.count(b"\n", 0, utf8.start) + 1
            raise AdminError(f"{path}:{line}: neither UTF-8 nor Shift_JIS (cp932) text "
                             f"(byte 0x{data[utf8.start]:02x}); save it as CSV UTF-8"
                             ) from None


def csv_rows(path: Path, text: str) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and every row of a CSV as ``(line number, cells by column)``.

    A malformed record (an unclosed quote, more or fewer cells than the header) raises
    an AdminError naming ``file:line`` where the record starts and what is wrong with it.
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[tuple[int, dict[str, str]]] = []
    header: list[str] | None = None
    end = 0
    while True:
        start = end + 1
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise AdminError(f"{path}:{start}: not a valid CSV line ({exc})") from None
        end = reader.line_num
        if not cells or all(not c.strip() for c in cells):
            continue  # blank lines (often one at the end) carry nothing
        if header is None:
            header = [c.strip().lower() for c in cells]
            continue
        if len(cells) != len(header):
            raise AdminError(f"{path}:{start}: {len(cells)} cells, but the header has "
                             f"{len(header)} ({','.join(header)}); a name with a comma "
                             f'needs quotes: "Family, Given"')
        rows.append((start, dict(zip(header, cells, strict=True))))
    return header or [], rows


CSV_COLUMNS = ("name", "email", "name_ja", "lang", "tz", "rating", "notation", "game",
               "provisional", "rank", "titles")
"""The columns of a members CSV; ``name`` and ``email`` are needed, the rest optional."""

CSV_COLUMNS_JA = {
    "名前": "name", "氏名": "name", "メール": "email", "メールアドレス": "email",
    "eメール": "email", "言語": "lang", "タイムゾーン": "tz", "時間帯": "tz",
    "レーティング": "rating", "表記": "notation", "棋譜表記": "notation", "種目": "game",
    "ゲーム": "game", "暫定": "provisional", "段級": "rank", "段級位": "rank", "称号": "titles",
    # the name in Japanese script (NFKC has made 名前（漢字） into 名前(漢字))
    "名前(漢字)": "name_ja", "氏名(漢字)": "name_ja", "漢字氏名": "name_ja",
    "漢字名": "name_ja", "日本語名": "name_ja",
}
"""Japanese header names of the same columns, as a club in Japan writes them in Excel."""


def csv_header(path: Path, header: list[str]) -> list[str]:
    """The header's columns as English names (Japanese ones read as :data:`CSV_COLUMNS_JA`
    says); an AdminError naming ``file:1`` when a column is unknown, repeated, or
    ``name`` or ``email`` is missing."""
    columns = [CSV_COLUMNS_JA.get(unicodedata.normalize("NFKC", c).strip().lower(),
                                  unicodedata.normalize("NFKC", c).strip().lower())
               for c in header]
    expected = (f"the header needs name and email (名前, メール); the other columns are "
                f"optional: {','.join(CSV_COLUMNS[2:])}")
    unknown = [h for h, c in zip(header, columns, strict=True) if c not in CSV_COLUMNS]
    if unknown:
        raise AdminError(f"{path}:1: unknown column {unknown[0]!r}: {expected}")
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if twice:
        raise AdminError(f"{path}:1: column {twice[0]} given twice")
    missing = [c for c in ("name", "email") if c not in columns]
    if missing:
        raise AdminError(f"{path}:1: no {' and no '.join(missing)} column "
                         f"(got {','.join(header) or 'nothing'}): {expected}")
    return columns


def import_members(session: Session, cfg: Config, path: Path, now: datetime,
                   progress: Callable[[int, int], None] | None = None) -> list[Member]:
    """Add every row of a CSV (header: name and email, then any of lang, tz, rating,
    notation, game, provisional, titles and, for go, rank; in English or Japanese, see
    :func:`csv_header`); all or nothing. UTF-8 or Shift_JIS (cp932).

    A rating is for the row's ``game`` (chess when empty) and official unless the
    ``provisional`` cell says yes or the rating is written in parentheses (R2).
    ``titles`` (R3) lists the titles held, separated by ``;`` (``IM; japan_champion``).
    ``progress(done, total)`` is called after each row is checked.
    """
    text, _encoding = read_csv_text(path)
    header, found = csv_rows(path, text)
    columns = csv_header(path, header)
    rows = [(number, {c: row[h] for h, c in zip(header, columns, strict=True)})
            for number, row in found]
    members: list[tuple[Member, RatingInput | None, tuple[str, ...]]] = []
    seen: set[str] = set()
    for done, (number, row) in enumerate(rows, start=1):
        where = f"{path}:{number}"

        def cell(name: str, row: dict[str, str] = row) -> str:
            return (row.get(name) or "").strip()

        rating, bracketed = (parse_rating(cell("rating"), f"{where}: rating")
                             if cell("rating") else (None, False))
        given = MemberInput(
            name=cell("name"), email=cell("email"), lang=cell("lang") or None,
            tz=cell("tz") or None, rating=rating, notation=cell("notation") or None,
            provisional=bracketed or parse_provisional(cell("provisional"),
                                                       f"{where}: provisional"),
            game=cell("game").lower() or None, rank=cell("rank") or None,
            name_ja=cell("name_ja"),
        )
        member = _validate_member(cfg, given, where)
        _not_the_bot(cfg, member.email, f"{where}: ")
        rating_input = _validate_rating(given, f"{where}: ", declared=True)  # as member add
        titles = tuple(t.strip() for t in cell("titles").split(";") if t.strip())
        _titles(titles, f"{where}: ")
        if member.email in seen or session.scalar(
            select(Member.id).where(Member.email == member.email)
        ) is not None:
            raise AdminError(f"{where}: a member with address {member.email} already exists")
        seen.add(member.email)
        member.created_at = now
        members.append((member, rating_input, titles))
        if progress is not None:
            progress(done, len(rows))
    session.add_all([member for member, _, _ in members])
    session.flush()
    for member, rating_input, titles in members:
        if rating_input is not None:
            set_rating(session, member, rating_input)
        set_titles(session, member, titles)
    session.flush()
    return [member for member, _, _ in members]


def member_by_address(session: Session, email: str) -> Member | None:
    """The member with this address (their main one or another registered one), or None."""
    address = email.strip().lower()
    member = session.scalar(select(Member).where(Member.email == address))
    if member is None:
        member = session.scalar(select(Member).join(
            MemberAddress, MemberAddress.member_id == Member.id).where(
            MemberAddress.address == address))
    return member


def find_member(session: Session, email: str) -> Member:
    """The member with this address (their main one or another registered one), or an
    AdminError naming it."""
    member = member_by_address(session, email)
    if member is None:
        raise AdminError(
            f"no member with address {email.strip()} (add one with: relaybot member add)"
        )
    return member
