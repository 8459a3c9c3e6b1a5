"""Bounded work per mail (issue 12 item 10): how much one mail may ask of the referee.

A mail is at most ~1 MB of text (G13), and every conditional line, PGN variation and
J17 section in it costs a legality check on a board. These caps keep the cost of one
mail small whatever it holds; a mail over a cap is refused whole, with one reply that
says which cap and what to send instead (nothing of it is applied).

* :data:`MAX_CONDITIONALS` distinct conditional proposals per mail (``if`` lines and
  PGN variations), after repeated lines are counted once (:func:`dedupe_lines`);
* :data:`MAX_SECTIONS` game sections per mail (J17);
* a record more than :data:`RECORD_SLACK` moves longer than the game could be with the
  mail's new move and the bound answers (:func:`record_limit`) is refused before any move
  of it is read.

Pure: no I/O.

1 通のメールで処理する量の上限：条件付き提案は重複を除いて 50 まで、対局の区切り
（J17）は 20 まで、対局より極端に長い棋譜は読まずに断ります。超えたメールは何も適用せず、
理由を 1 通で返信します。
"""

from __future__ import annotations

from collections.abc import Collection

__all__ = ["MAX_CONDITIONALS", "MAX_SECTIONS", "RECORD_SLACK", "dedupe_lines",
           "record_limit"]

MAX_CONDITIONALS = 50
MAX_SECTIONS = 20
RECORD_SLACK = 10


def dedupe_lines(text: str, indices: Collection[int]) -> tuple[str, int]:
    """``text`` with every repeat of a line among ``indices`` (the proposal lines) blanked,
    the line count unchanged; and how many distinct lines remain. Lines compare with
    surrounding space and case ignored."""
    if not indices:
        return text, 0
    lines = text.splitlines()
    seen: set[str] = set()
    blanked = False
    for index in sorted(indices):
        if not 0 <= index < len(lines):
            continue
        key = " ".join(lines[index].split()).casefold()
        if key in seen:
            lines[index] = ""
            blanked = True
        else:
            seen.add(key)
    # the text as it came unless a line was blanked (its line breaks kept as they were)
    return ("\n".join(lines) if blanked else text), len(seen)


def record_limit(stored: int, longest_binding: int) -> int:
    """The most plies a mail's record may name: the game's ``stored`` plies, the sender's
    new move, the bound answers of the longest binding proposal (J16), and
    :data:`RECORD_SLACK` for a player who wrote a few moves too many (that one gets the
    usual ``too_many_moves`` reply)."""
    return stored + 1 + max(0, longest_binding) + RECORD_SLACK
