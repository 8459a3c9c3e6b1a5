"""The one reading of a mail (core/reading.py, issue 22): what the gate judges is what acts."""

from __future__ import annotations

from collections.abc import Sequence

from relaybot.core.reading import Reading, read_mail
from relaybot.games import rules_for

CHESS = rules_for("chess")
GID = "k7m2qx"


def reading(text: str, named: Sequence[str] = ()) -> Reading:
    return read_mail(text, named=named, labels={GID: GID, "A": GID}, rules_of={GID: CHESS},
                     any_rules=[CHESS])


def test_a_labelled_resignation_after_status_is_read_as_a_resignation() -> None:
    r = reading(f"status\n{GID}: resign\n{GID}: 1. e4 e5")
    assert r.acts and not r.read_only
    (part,) = r.parts
    assert part.game_id == GID and part.intent.resign and part.moves
    assert r.game_targets == (GID,)


def test_status_and_help_alone_only_read() -> None:
    r = reading("Hello!\nstatus\nhelp", named=[GID])
    assert r.read_only and not r.acts


def test_every_keyword_that_changes_something_acts() -> None:
    for line in ("digest off", "leave 2026-05-01 2026-05-03", "td: a question", "long think",
                 "draw?", "draw", "投了", "ダイジェスト停止"):
        r = reading(f"status\n{line}", named=[GID])
        assert r.acts and not r.read_only, line


def test_confirm_and_cancel_are_answers_not_reads() -> None:
    r = reading("confirm")
    assert not r.acts and not r.read_only and r.intent.confirm
    assert reading("取消").intent.cancel


def test_a_command_line_is_read_with_its_line() -> None:
    r = read_mail(f"Hi\nforfeit {GID} white", command_at=lambda line: (
        "forfeit" if line.startswith("forfeit") else None))
    assert [(c.line, c.name, c.does) for c in r.commands] == [(1, "forfeit", "command")]
    assert r.acts and not r.read_only


def test_the_postal_record_below_a_fragment_wins() -> None:
    """J1: "A局 3. Bc4 Nf6", a blank line, the whole game: the whole record is read."""
    r = reading("A局 3. Bc4 Nf6\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6")
    (part,) = r.parts
    record = CHESS.extract_record(part.text)
    assert record.first_ply == 0 and len(record.tokens) == 6


def test_a_greetings_keyword_counts_in_every_section() -> None:
    other = "b8n4zp"
    r = read_mail(f"resign\n\n{GID}: 1. e4\n{other}: 1. d4",
                  labels={GID: GID, other: other}, rules_of={GID: CHESS, other: CHESS},
                  any_rules=[CHESS])
    assert [p.game_id for p in r.parts] == [GID, other]
    assert all(p.intent.resign for p in r.parts)
    assert r.games == (GID, other)


def test_nothing_in_prose_acts() -> None:
    r = reading("Thanks for the game!\nI will not resign.", named=[GID])
    assert not r.acts and not r.read_only and not r.found
