"""Issue 23: every mail ends with a link to the players' guide (``/help`` on the club's
pages) in its reader's language, when the pages run (``[web] base_url``); without them
no mail has the footer. End to end: Dovecot in, the SMTP sink out."""

from __future__ import annotations

from dataclasses import replace

import pytest

from relaybot.config import WebConfig
from tests.integration.relay_harness import Club, body_of
from tests.servers.smtp_sink import Captured

pytestmark = pytest.mark.integration

SITE = "https://chess.club.example"
EN = f"How to play by mail (moves, keywords, how days are counted): {SITE}/help?lang=en"
JA = f"メール対局の案内（指し手の書き方・キーワード・日数の数え方）: {SITE}/help?lang=ja"


def text_of(mail: Captured) -> str:
    """The plain text as the reader sees it (lines as Python writes them)."""
    return body_of(mail).replace("\r\n", "\n").rstrip("\n")


def test_a_relayed_mail_and_every_other_end_with_the_guide_in_the_readers_language(
        club: Club) -> None:
    club.cfg = replace(club.cfg, web=WebConfig(base_url=SITE + "/"))
    white = club.member("Sato, Hanako", "sato@example.jp", lang="ja")
    black = club.member("Brown, Tom", "brown@example.org", lang="en")
    club.game(white, black)
    white.send("1. e4")
    assert club.cycle().poll.outcomes == {"move": 1}
    relayed = text_of(black.inbox()[-1])
    assert "Sato" in relayed and "1. e4" in relayed
    # the signature separator, then the link: the last lines of the mail
    assert relayed.endswith(f"\n-- \n{EN}"), relayed[-300:]
    for mail in white.inbox():  # the start mail and the acknowledgement, in Japanese
        assert text_of(mail).endswith(f"\n-- \n{JA}")
    assert all(body_of(mail).count("/help?lang=") == 1 for mail in black.inbox())
    # the opponent replies quoting the mail, footer and all: the move is read as ever
    black.send("1. e4 e5")
    assert club.cycle().poll.outcomes == {"move": 1}
    assert text_of(white.inbox()[-1]).endswith(JA)


def test_without_the_web_pages_no_mail_has_the_footer(club: Club) -> None:
    white = club.member("Sato, Hanako", "sato@example.jp", lang="ja")
    black = club.member("Brown, Tom", "brown@example.org", lang="en")
    club.game(white, black)
    white.send("1. e4")
    assert club.cycle().poll.outcomes == {"move": 1}
    mails = [text_of(m) for m in (*white.inbox(), *black.inbox())]
    assert len(mails) >= 3
    assert not any("/help" in text or "\n-- \n" in text for text in mails)
