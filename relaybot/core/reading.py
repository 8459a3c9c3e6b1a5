"""One reading of a mail: what every later stage takes, so that what the gate judges is
exactly what acts (issue 22; INTERFACE.md "Who may act").

A mail is read once into a :class:`Reading`: the games it names (by address, subject tag
or J17 label), its parts (one per labelled section, or one for the whole mail), each part
with the text its game's referee reads, the keywords found in that text (each declaring
what it does, ``core/intent.py``), whether that game's record reader finds moves in it,
and the TD command lines of the mail. The gate asks the reading whether the mail only
reads (``status`` / ``help``); the holds ask it which games it names; the referee gets each
part's text and keywords from it; nobody reads the text a second time with another
reader.

Within a part, the JCCA's postal habit of writing the new moves first and the whole
game below (``A局 3. Bc4 Nf6``, a blank line, ``1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6``) is read
as the whole record: a paragraph whose record starts at move 1 wins over a fragment that
starts later, wherever it stands (J1). Pure: no I/O; never raises for any text.

一通のメールを一度だけ読み、その読みを門番・保留・審判のすべてが使います。
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from relaybot.core.game import GameRules, RecordText
from relaybot.core.intent import Does, Found, Intent, read_intent, strip_lines
from relaybot.core.sections import Section, split_mail

# A TD command line's reader (pipeline/td/): the command's name, or None for any other
# line. Commands all do "command"; what each then changes is the command's own business.
CommandTest = Callable[[str], str | None]


@dataclass(frozen=True)
class Part:
    """One game's part of a mail, as that game's referee reads it.

    ``game_id`` is the labelled section's game, or for a mail without labels the game the
    mail names (None when it names none). ``text`` is what the referee reads: the
    greeting and the section (labels removed), or the whole text.
    """

    game_id: str | None
    text: str
    intent: Intent
    moves: bool  # the game's record reader finds moves or proposals in the text
    label: str = ""

    @property
    def acts(self) -> bool:
        """True when this part would change something if it were played."""
        return self.moves or self.intent.acts


@dataclass(frozen=True)
class Reading:
    """A mail read once: its greeting, its parts and its command lines."""

    text: str
    named: tuple[str, ...]  # games named by address or subject tag (existing ones)
    greeting: str
    parts: tuple[Part, ...]
    sections: tuple[Section, ...] = ()
    commands: tuple[Found, ...] = field(default_factory=tuple)

    @property
    def found(self) -> list[Found]:
        """Every keyword and command the mail holds (a greeting's keyword once per part)."""
        return [f for p in self.parts for f in p.intent.found] + list(self.commands)

    @property
    def games(self) -> tuple[str, ...]:
        """Every game the mail names: by address, subject tag or label, in that order."""
        ids = list(self.named)
        for part in self.parts:
            if part.game_id is not None and part.game_id not in ids:
                ids.append(part.game_id)
        return tuple(ids)

    @property
    def acts(self) -> bool:
        """True when anything in the mail would move, resign, offer, accept, take leave,
        change a setting or command: such a mail is held unless it is authenticated."""
        return bool(self.commands) or any(p.acts for p in self.parts)

    @property
    def read_only(self) -> bool:
        """True for a mail that only asks for ``status`` / ``help``: answered at once, to
        the registered address, changing nothing."""
        found = self.found
        return bool(found) and not self.acts and all(f.does == "reads" for f in found)

    @property
    def commands_only(self) -> Reading:
        """The reading as a TD's mail acts on it: its command lines alone."""
        return replace(self, parts=(), sections=())

    @property
    def without_commands(self) -> Reading:
        """The reading as a player's mail acts on it: a player's command lines do nothing."""
        return replace(self, commands=())

    @property
    def found_keywords(self) -> bool:
        """True when some part holds a keyword (commands aside)."""
        return any(p.intent.found for p in self.parts)

    def does(self, *what: Does) -> bool:
        """True when a keyword or command of the mail does one of ``what``."""
        return any(f.does in what for f in self.found)

    @property
    def game_targets(self) -> tuple[str | None, ...]:
        """The game each acting, game-bound part would change (None: a part with moves or
        a game keyword that names no game)."""
        return tuple(p.game_id for p in self.parts
                     if p.moves or p.intent.does("game", "aside"))

    @property
    def has_moves(self) -> bool:
        """True when some part holds moves (or proposals) for its game."""
        return any(p.moves for p in self.parts)

    @property
    def intent(self) -> Intent:
        """The keywords of the whole mail (the one part's, or every part's together)."""
        if len(self.parts) == 1:
            return self.parts[0].intent
        return _merged([p.intent for p in self.parts])


def read_mail(
    text: str,
    *,
    named: Sequence[str] = (),
    labels: Mapping[str, str] | None = None,
    rules_of: Mapping[str, GameRules] | None = None,
    any_rules: Sequence[GameRules] = (),
    game_words: Mapping[str, str] | None = None,
    command_at: CommandTest | None = None,
) -> Reading:
    """Read ``text`` once.

    ``named``: the existing games the mail names by address or subject tag; ``labels``:
    J17 section labels (written label -> game id); ``rules_of``: each game's rules (a
    part is read by its own game's reader); ``any_rules``: the readers to try where the
    game is not known (every game kind the member plays); ``game_words``: the games' own
    keywords; ``command_at``: the TD command reader.
    """
    rules_of = rules_of or {}
    named = tuple(named)
    readers = list(any_rules)

    def move_test(token: str) -> bool:
        return any(r.looks_like_move(token) for r in readers)

    greeting, sections = split_mail(text, dict(labels or {}), move_test)
    if sections:
        parts = tuple(
            _part(section.game_id, ((greeting + "\n\n" + section.text) if greeting
                                    else section.text),
                  rules_of, readers, game_words, section.label)
            for section in sections)
    else:
        parts = (_part(named[0] if named else None, text, rules_of, readers, game_words),)
    commands: tuple[Found, ...] = ()
    if command_at is not None:
        commands = tuple(Found(index, name, "command")
                         for index, line in enumerate(text.splitlines())
                         if (name := command_at(line)) is not None)
    return Reading(text=text, named=named, greeting=greeting if sections else "",
                   parts=parts, sections=tuple(sections), commands=commands)


def _part(game_id: str | None, text: str, rules_of: Mapping[str, GameRules],
          readers: Sequence[GameRules], game_words: Mapping[str, str] | None,
          label: str = "") -> Part:
    rules = rules_of.get(game_id) if game_id is not None else None
    words = dict(rules.keywords) if rules is not None else dict(game_words or {})
    intent = read_intent(text, words)
    own = [rules] if rules is not None else list(readers)
    better = _whole_record_first(text, intent, own)
    if better is not None:
        text, intent = better, read_intent(better, words)
    rest = strip_lines(text, intent.keyword_lines)
    moves = any(r.extract_record(rest).tokens or r.proposal_lines(rest) for r in own)
    return Part(game_id, text, intent, moves, label)


def _whole_record_first(text: str, intent: Intent, readers: Sequence[GameRules]
                        ) -> str | None:
    """J1, the postal habit: where a part holds a fragment (a record starting after move
    1) and, in another paragraph, a record from move 1, the text without the fragment's
    paragraph; None when there is nothing to choose."""
    if len(readers) != 1:
        return None
    rules = readers[0]
    lines = text.splitlines()
    rest = strip_lines(text, intent.keyword_lines)
    record = rules.extract_record(rest)
    if not record.tokens or record.first_ply == 0:
        return None
    paragraphs = _paragraphs(lines)
    if len(paragraphs) < 2:
        return None
    keyword_lines = intent.keyword_lines
    records = []
    for start, end in paragraphs:
        block = "\n".join("" if i in keyword_lines else lines[i] for i in range(start, end))
        records.append(((start, end), rules.extract_record(block)))
    wholes = [(len(r.tokens), span) for span, r in records if r.tokens and r.first_ply == 0]
    if not wholes:
        return None
    whole = max(wholes)[1]  # the longest record from move 1
    full = next(r for span, r in records if span == whole)
    # the other paragraphs that hold moves (the fragments) become blank lines, so every
    # other line keeps its index (the keyword lines are found where they stood); a
    # fragment that names other moves than the whole record stays, for the referee to
    # see that the mail names two moves for one ply (a misread is worse than a refusal)
    out = list(lines)
    for span, found in records:
        if span != whole and found.tokens and _agrees(rules, found, full):
            out[span[0]:span[1]] = [""] * (span[1] - span[0])
    return "\n".join(out)


def _agrees(rules: GameRules, fragment: RecordText, whole: RecordText) -> bool:
    """Whether a fragment's moves are the whole record's at the same plies, as comparison
    keys (a move spelt two ways counts as a difference: the referee, which has the board,
    then reads both)."""
    start = fragment.first_ply
    if start + len(fragment.tokens) > len(whole.tokens):
        return False
    return all(rules.token_key(token) == rules.token_key(whole.tokens[start + k])
               for k, token in enumerate(fragment.tokens))


def _paragraphs(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) line ranges of the non-blank runs of ``lines``."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i, line in enumerate(lines):
        if line.strip():
            if start is None:
                start = i
        elif start is not None:
            out.append((start, i))
            start = None
    if start is not None:
        out.append((start, len(lines)))
    return out


def _merged(intents: list[Intent]) -> Intent:
    """One intent holding what several parts' intents hold (for the mail as a whole)."""
    out = Intent()
    for intent in intents:
        out.resign |= intent.resign
        out.draw_offer |= intent.draw_offer
        out.draw_accept |= intent.draw_accept
        out.status |= intent.status
        out.help |= intent.help
        out.leave = out.leave or intent.leave
        out.leave_invalid |= intent.leave_invalid
        out.td_question = out.td_question or intent.td_question
        out.long_think |= intent.long_think
        out.digest_off |= intent.digest_off
        out.digest_on |= intent.digest_on
        out.confirm |= intent.confirm
        out.cancel |= intent.cancel
        out.declared = out.declared or intent.declared
        out.found.extend(intent.found)
    return out
