"""Regenerate docs/mails/: one sample of each kind of mail the bot sends, in Japanese and
in English, as its reader gets it (issue 15).

    python3 scripts/sample_mails.py

A small club (tests/sample_club.py) plays through the real pipeline on a throwaway
SQLite database until it has sent every kind of mail in ``relaybot.mail.kinds`` (see
``every_kind`` there). For each kind and language the first such mail is written as
``<kind>.<lang>.txt`` (the headers a reader sees, then the plain text) and, when it has
one, ``<kind>.<lang>.html`` (its HTML part, pictures inlined) and its attachments; a
shogi and a go move mail are written as ``move_shogi`` and ``move_go``. TD mail is in
the bot's language, so the club runs twice: with ``[bot] language`` ja, then en with
every member reading the other language.
"""

from __future__ import annotations

import base64
import email
import random
import secrets
import shutil
import sys
import tempfile
import uuid
from email import policy
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import select  # noqa: E402

from relaybot.store.models import Game, Member, Outbox  # noqa: E402
from tests.sample_club import build, every_kind  # noqa: E402

OUT = ROOT / "docs" / "mails"
SHOWN = ("From", "To", "Reply-To", "Subject", "Date", "List-Unsubscribe",
         "List-Unsubscribe-Post")


def repeatable(seed: str) -> None:
    """Seeded stand-ins for the random game ids and tokens of this script's own run, so
    that a regeneration changes only the files whose mail changed (never in the bot)."""
    rng = random.Random(seed)
    secrets.choice = rng.choice  # type: ignore[assignment]
    secrets.token_bytes = rng.randbytes  # type: ignore[assignment]
    secrets.token_urlsafe = (  # type: ignore[assignment]
        lambda n=32: base64.urlsafe_b64encode(rng.randbytes(n)).rstrip(b"=").decode())
    uuid.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)  # Message-IDs


def collect(language: str, swap: bool) -> dict[tuple[str, str], EmailMessage]:
    """The first mail of each (kind, reader's language) of a club run."""
    repeatable(f"docs/mails {language}")
    found: dict[tuple[str, str], EmailMessage] = {}
    with tempfile.TemporaryDirectory() as tmp:
        club = build(Path(tmp), language=language, swap=swap)
        every_kind(club)
        with club.store.session() as session:
            langs = {m.id: m.lang for m in session.scalars(select(Member))}
            games = {g.id: g.kind for g in session.scalars(select(Game))}
            for kind, member_id, game_id, raw in session.execute(
                    select(Outbox.kind, Outbox.member_id, Outbox.game_id, Outbox.raw)
                    .order_by(Outbox.id)):
                lang = langs.get(member_id, language) if member_id else language
                game = games.get(game_id or "", "chess")
                if kind == "move" and game != "chess":
                    kind = f"move_{game}"  # a shogi and a go move mail besides chess
                if (kind, lang) not in found:
                    msg = email.message_from_bytes(raw, policy=policy.default)
                    assert isinstance(msg, EmailMessage)
                    found[(kind, lang)] = msg
        club.store.dispose()
    return found


def write(kind: str, lang: str, msg: EmailMessage) -> list[str]:
    """The sample's files; returns their names."""
    stem = f"{kind}.{lang}"
    head = "".join(f"{name}: {msg[name]}\n" for name in SHOWN if msg[name] is not None)
    text = msg.get_body(preferencelist=("plain",))
    assert text is not None
    (OUT / f"{stem}.txt").write_text(head + "\n" + text.get_content().replace("\r\n", "\n"),
                                     encoding="utf-8")
    names = [f"{stem}.txt"]
    html = msg.get_body(preferencelist=("html",))
    if html is not None:
        page = html.get_content()
        for part in msg.walk():
            cid = part["Content-ID"]
            if cid and part.get_content_maintype() == "image":
                data = base64.b64encode(part.get_content()).decode("ascii")
                page = page.replace(f"cid:{cid.strip('<>')}",
                                    f"data:{part.get_content_type()};base64,{data}")
        (OUT / f"{stem}.html").write_text(page, encoding="utf-8")
        names.append(f"{stem}.html")
    for part in msg.iter_attachments():
        name = part.get_filename()
        if name and part.get_content_maintype() != "image":
            target = f"{stem}.attachment.{name.rsplit('.', 1)[-1]}"
            (OUT / target).write_bytes(part.get_content() if isinstance(
                part.get_content(), bytes) else part.get_content().encode("utf-8"))
            names.append(target)
    return names


def main() -> int:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    samples = collect("ja", swap=False)
    for key, msg in collect("en", swap=True).items():
        samples.setdefault(key, msg)
    index = ["# Sample mails / メールの見本", "",
             "Regenerated by `python3 scripts/sample_mails.py` (issue 15): one mail of each",
             "kind in each language, as its reader gets it. 各種メールの日本語版と英語版。", "",
             "| kind | ja | en |", "|---|---|---|"]
    kinds = sorted({k for k, _ in samples})
    for kind in kinds:
        cells = []
        for lang in ("ja", "en"):
            msg = samples.get((kind, lang))
            files = write(kind, lang, msg) if msg is not None else []
            cells.append(" ".join(f"[{f.split('.', 2)[-1]}]({f})" for f in files) or "-")
        index.append(f"| {kind} | {cells[0]} | {cells[1]} |")
    (OUT / "README.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    print(f"wrote {len(samples)} samples of {len(kinds)} kinds to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
