"""Words a person reads that depend on a number or on the game (issue 26 items 1 and 6).

- :func:`count`: a number with its word in the plural the reader's language gives it
  (CLDR's rules through Babel: ``1 ply``, ``2 plies``, ``0 days``; Japanese has one form),
  never a hand-made ``day(s)``;
- :func:`result_text`, :func:`ending_text`: a stored result and its ending in the game's
  own words (:mod:`relaybot.core.words`: shogi 先手の勝ち, not chess's ``1-0``);
- :func:`reason_text`, :func:`move_error_text`: why a move or a proposal was refused
  (:mod:`relaybot.core.reasons`), in the reader's language;
- :func:`score_text`: a player's score line in the game's words, ``あなた`` / ``Your``
  when it is the reader's own;
- :func:`days_left`: the days left on a clock, or how far over it is (never "-3");
- :func:`progress_text`: how far a game has gone, as its players count moves (chess
  ``after Black's 3rd move`` / 黒の第3手まで, shogi and go ``6 moves played`` / 6手まで);
- :func:`move_words`: the noun and the verb of a move in the game's words (go 着手 /
  打ちました, chess and shogi 指し手 / 指しました); :func:`one_kind`: the game a mail about
  several games speaks of.
"""

from __future__ import annotations

from collections.abc import Iterable

from relaybot.core import words
from relaybot.core.game import GameRules, MoveError, Outcome, Progress, progress_of, result_in
from relaybot.core.reasons import Reason, say
from relaybot.games.registry import rules_for
from relaybot.mail.plurals import NOUNS, count, ordinal, plural_form, word_for

__all__ = ["NOUNS", "count", "days_left", "ending_text", "move_error_text", "move_words",
           "one_kind", "ordinal", "outcome_text", "plural_form", "progress_text",
           "reason_text", "result_text", "score_text", "word_for"]


def _outcome(rules: GameRules, result: str, termination: str) -> Outcome | None:
    try:
        return rules.parse_result(result, termination)
    except ValueError:
        return None


def _rules(kind: str) -> GameRules | None:
    try:
        return rules_for(kind)
    except ValueError:  # a game not installed here: its stored words as they are
        return None


def result_text(kind: str, result: str, termination: str, lang: str) -> str:
    """A stored result (the TD's words, ``1-0``) as a reader of ``lang`` says it in the
    game's own words (shogi 先手の勝ち / "Sente wins"); "" for no result."""
    if not result:
        return ""
    rules = _rules(kind)
    if rules is not None and getattr(rules, "result_text_words", None) is not None:
        return result_in(rules, result, lang)  # go: the margin is in the stored text
    outcome = _outcome(rules, result, termination) if rules is not None else None
    if rules is None or outcome is None:
        return result
    return words.result_words(rules, outcome, lang)


def outcome_text(rules: GameRules, outcome: Outcome, lang: str) -> str:
    """An outcome in the game's own words (see :func:`relaybot.core.words.result_words`)."""
    return words.result_words(rules, outcome, lang)


def ending_text(kind: str, termination: str, lang: str) -> str:
    """How a game ended in the game's own words, else the words all games share; "" for
    an ending neither has a word for."""
    rules = _rules(kind)
    if rules is None:
        return words.common_termination(termination, lang, "")
    return words.termination_words(rules, termination, lang)


def score_text(kind: str, wins: int, draws: int, losses: int, lang: str, *,
               who: str = "", own: bool = False) -> str:
    """A player's score line in the game's words: ``あなたの通算成績は 1勝 0敗 0引き分け。``
    for the reader's own (``own``), ``Ann Smith's score: 1 win, 0 draws, 0 losses.`` for
    ``who``; English plurals by CLDR."""
    rules = _rules(kind)
    said = (words.score_words(rules, lang) if rules is not None
            else words.DEFAULT_SCORE_WORDS["ja" if lang == "ja" else "en"])
    parts = {"wins": count(wins, said.win, lang), "draws": count(draws, said.draw, lang),
             "losses": count(losses, said.loss, lang)}
    if own:
        return said.own.format(**parts)
    if who:
        return said.line.format(who=who, **parts)
    order = ("wins", "losses", "draws") if said.line.index("{losses}") < said.line.index(
        "{draws}") else ("wins", "draws", "losses")
    return (" " if lang == "ja" else ", ").join(parts[key] for key in order)


def move_words(kind: str, lang: str) -> words.MoveWords:
    """The noun and the verb of a move of the game ``kind`` in ``lang``: go 着手,
    打ちました, 打って; chess's and shogi's 指し手, 指しました for those and for a kind that
    is empty (a mail about no one game) or not installed here. Templates call it as
    ``move_words(game_kind|default(""), "ja")`` and write ``mw.noun``, ``mw.past`` ..."""
    rules = _rules(kind) if kind else None
    if rules is None:
        return words.DEFAULT_MOVE_WORDS["ja" if lang == "ja" else "en"]
    return words.move_words(rules, lang)


def one_kind(kinds: Iterable[str]) -> str:
    """The game kind all of ``kinds`` share, "" for none or several: a mail about several
    games (a leave, a reply to sections) speaks a go player's words (着手, not 指し手) only
    when every one of them is go."""
    found = set(kinds)
    return found.pop() if len(found) == 1 else ""


def progress_text(plies: int, kind: str, lang: str = "en") -> str:
    """How far a game of ``plies`` plies has gone, as its players count moves (the game's
    :func:`~relaybot.core.game.progress_of`): chess by the number of the last move and
    whose it was (``after Black's 3rd move``, 黒の第3手まで: a chess 手 is a move of each
    side), shogi and go a move a ply (``6 moves played``, 6手まで); ``no move yet`` /
    初手はまだ before the first. Templates use it as the ``progress`` filter:
    ``{{ g.moves|progress(g.kind, "ja") }}``."""
    ja = lang == "ja"
    if plies <= 0:
        return "初手はまだ" if ja else "no move yet"
    rules = _rules(kind)
    said = progress_of(rules, plies) if rules is not None else Progress(plies)
    if said.side is None or rules is None:
        return f"{said.move}手まで" if ja else f"{count(said.move, 'move', lang)} played"
    side = rules.side_names("ja" if ja else "en")[said.side]
    if ja:
        return f"{side}の{ordinal(said.move, lang)}手まで"
    return f"after {side}'s {ordinal(said.move, lang)} move"


def days_left(left: int, lang: str = "en") -> str:
    """The days left on a clock as a reader writes them after "left" / 残り: ``17``
    (English; its sentence says "days") or ``17日``; a clock past its limit (the TD is
    told; the game goes on until the TD decides) says how far over it is instead of a
    negative number: ``0, 3 days over`` / ``0日（3日超過）``. Templates use it as the
    ``left`` filter."""
    if lang == "ja":
        return f"{left}日" if left >= 0 else f"0日（{-left}日超過）"
    return str(left) if left >= 0 else f"0, {count(-left, 'day', lang)} over"


def reason_text(reason: Reason, lang: str) -> str:
    """A refusal's reason (a code and its parameters) as a reader of ``lang`` reads it."""
    return say(reason, lang)


def move_error_text(error: MoveError, lang: str) -> str:
    """Why a move was refused, in ``lang``; "" when the game gave only a plain English
    detail and the reader reads another language (a reply never shows its reader
    another language's prose)."""
    if error.why is not None:
        return say(error.why, lang)
    return error.detail if lang == "en" else ""
