"""T12: fuzz (Hypothesis) plus the corpus in tests/data/mail (RELIABILITY.md).

``process_mail`` runs directly on a SQLite store for speed. No uncaught exception; a
game changes only by a legal move of the player to move (or a result by a player); at
most one error reply, only to a known sender. The long run is bench/fuzz.py.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reliability.fuzzkit import (
    BLACK,
    JUNK_TOKENS,
    WHITE,
    FuzzClub,
    corpus,
    random_mail,
)
from tests.reliability.harness import emit

pytestmark = [pytest.mark.reliability]

_CLUB: list[FuzzClub] = []
_TALLY = {"mails": 0, "findings": 0}

move_texts = st.one_of(
    st.lists(st.sampled_from([*JUNK_TOKENS, "e4", "e5", "d4", "Nf3", "Nc6", "1.", "2."]),
             max_size=12).map(" ".join),
    st.text(alphabet="12345678abcdefghNBRQKOx0-+#=.! \n>♘♗♖♕♔", max_size=80),
    st.text(max_size=200),
)
senders = st.sampled_from([WHITE, BLACK, "other@example.net", "x@evil.example"])


def club() -> FuzzClub:
    if not _CLUB:
        _CLUB.append(FuzzClub())
    return _CLUB[0]


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2**32 - 1), serial=st.integers(0, 10**9))
def test_t12_fuzz_generated_mail_structure(seed: int, serial: int) -> None:
    fc = club()
    # one draw from Hypothesis, the rest from a Random it seeds: the mail's choices depend
    # on the club's games, which every earlier example changes, and Hypothesis refuses a
    # strategy whose draws vary with outside state (FlakyStrategyDefinition)
    findings = fc.check(random_mail(random.Random(seed), fc.state, serial), serial)
    _TALLY["mails"] += 1
    _TALLY["findings"] += len(findings)
    assert findings == []


@settings(max_examples=100, deadline=None, derandomize=True)
@given(text=move_texts, sender=senders, serial=st.integers(0, 10**9))
def test_t12_fuzz_move_text(text: str, sender: str, serial: int) -> None:
    fc = club()
    gid = sorted(fc.state.games)[0]
    raw = (f"From: {sender}\r\nTo: relay+{gid}@club.example\r\nSubject: [{gid}]\r\n"
           f"Message-ID: <mt{serial}.{fc.uid}@fuzz.example>\r\n"
           "Content-Type: text/plain; charset=utf-8\r\n\r\n").encode() + text.encode()
    findings = fc.check(raw, serial)
    _TALLY["mails"] += 1
    _TALLY["findings"] += len(findings)
    assert findings == []


def test_t12_corpus_then_report() -> None:
    fc = club()
    mails = corpus()
    # the corpus as it is, and again aimed at a real game from a real player
    gid = sorted(fc.state.games)[0]
    aimed = [m.replace(b"g7k2", gid.encode()).replace(b"alice@x.org", WHITE.encode())
             for m in mails]
    findings = []
    for i, raw in enumerate([*mails, *aimed]):
        findings += fc.check(raw, i)
    _TALLY["mails"] += len(mails) * 2
    _TALLY["findings"] += len(findings)
    assert findings == []
    emit("T12", in_=_TALLY["mails"], applied=fc.legal_moves, out="-", duplicates=0, lost=0,
         uncaught=0, bad_state_changes=0, corpus=len(mails))
