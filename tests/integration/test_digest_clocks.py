"""D1 after a leave (issue 13, item 1): the digest shows the days the books show, every
leave taken counted (J12), not only the leaves of the last week."""

from __future__ import annotations

import email
import re
from datetime import timedelta
from email import policy
from email.message import EmailMessage

from sqlalchemy import select

from relaybot.app.digest import send_digests
from relaybot.club.daybooks import books_for
from relaybot.pipeline.lifecycle import load_game
from relaybot.store.models import Game, Outbox
from tests.integration.relay_harness import Club


def test_d1_the_digest_counts_days_as_the_books_do_after_a_leave(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp")
    black = club.member("Brown, Tom", "brown@example.org")
    gid = club.game(white, black)
    club.cycle()
    white.send("1. e4", to=white.game_address(gid))
    club.cycle()
    d0 = (club.clock + timedelta(days=2)).date()
    black.send(f"leave {d0} {d0 + timedelta(days=19)}", to=black.member_address(),
               subject="leave")  # 20 days, long over when the digest goes out
    club.cycle()
    now = club.clock + timedelta(days=40)
    assert send_digests(club.store, club.cfg, now) >= 1
    with club.store.session() as s:
        game = s.get(Game, gid)
        assert game is not None
        books = books_for(s, load_game(s, game, now))
        raw = s.scalars(select(Outbox.raw).where(  # the digest of the week of ``now``
            Outbox.kind == "digest", Outbox.recipient == "brown@example.org")
            .order_by(Outbox.id.desc())).first()
    assert raw is not None
    msg = email.message_from_bytes(raw, policy=policy.default)
    assert isinstance(msg, EmailMessage)
    body = str(msg.get_body(preferencelist=("plain",)).get_content())  # type: ignore[union-attr]
    used = re.search(r"you have used (\d+) day", body)
    assert used is not None, body
    pending = re.search(r"YOUR MOVE \((\d+) day", body)
    assert pending is not None, body
    # the leave's 20 days are not counted against Black's current move
    assert int(pending.group(1)) <= 40 - 20, body
    assert int(used.group(1)) == books.black.total
