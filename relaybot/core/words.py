"""How a game's results and moves read to a person, in each language (issue 26 item 1).

Each game plug-in may say its results and its moves in its own words through optional
methods of its ``RULES`` (the store keeps the TD's words of ``format_result``; these are
only for reading):

- ``result_words(outcome, lang) -> str``: the result as a reader of ``lang`` says it
  (shogi 先手の勝ち / "Sente wins", 千日手, 持将棋, 両者負け; go 黒5目半勝ち / "B+5.5";
  chess ``1-0`` as players write it). Without it: ``format_result``.
- ``termination_words(termination, lang) -> str | None``: how the game ended (shogi 詰み,
  千日手 ...); None for an ending it has no word of its own for, which then reads as
  :data:`COMMON_TERMINATIONS` says (resignation, time, the TD's decisions ...).
- ``score_words(lang) -> ScoreWords``: the words of a player's score line (the draw is
  ドロー in chess, 引き分け in shogi, 持碁 in go). Without it: :data:`DEFAULT_SCORE_WORDS`.
- ``move_words(lang) -> MoveWords``: the noun and the verb of a move (a go player plays
  a 着手 and 打つ it; chess and shogi players 指す a 指し手). Without it:
  :data:`DEFAULT_MOVE_WORDS`.

Pure: the plural a number takes (``1 win``, ``2 wins``) is chosen by the shell
(``relaybot.mail.wording``, CLDR rules through Babel) from the forms given here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, TypeVar

from relaybot.core.game import GameRules, Outcome

# How a game ended when the game has no word of its own for it: the endings every game
# shares (core.game.Termination) and chess's, which were the first
COMMON_TERMINATIONS: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "ja": MappingProxyType({
        "checkmate": "チェックメイト", "resignation": "投了", "agreement": "合意によるドロー",
        "stalemate": "ステイルメイト", "threefold": "同一局面3回によるドロー",
        "fifty_moves": "50手ルールによるドロー", "insufficient_material": "駒不足によるドロー",
        "seventyfive_moves": "75手ルールによるドロー",
        "fivefold_repetition": "同一局面5回によるドロー", "time": "時間切れ",
        "forfeit": "不戦敗（TDの裁定）", "adjudication": "TDの裁定",
        "withdrawal_lost": "棄権による負け", "withdrawal_void": "棄権による無効",
        "withdrawal_suspended": "棄権による中断", "": "終局"}),
    "en": MappingProxyType({
        "checkmate": "checkmate", "resignation": "resignation", "agreement": "draw agreed",
        "stalemate": "stalemate", "threefold": "draw by threefold repetition",
        "fifty_moves": "draw by the fifty-move rule",
        "insufficient_material": "draw by insufficient material",
        "seventyfive_moves": "draw by the seventy-five-move rule",
        "fivefold_repetition": "draw by fivefold repetition", "time": "lost on time",
        "forfeit": "forfeit (the tournament director's decision)",
        "adjudication": "adjudicated by the tournament director",
        "withdrawal_lost": "lost by withdrawal", "withdrawal_void": "void by withdrawal",
        "withdrawal_suspended": "suspended by withdrawal", "": "game over"}),
})


@dataclass(frozen=True)
class ScoreWords:
    """The words of a score line in one language. Each word is given by CLDR plural
    category (``one``, ``other``; Japanese has only ``other``), so that the shell writes
    ``1 win`` and ``2 wins``; ``line`` is the sentence with ``{who}`` (a name, or
    ``you`` / ``own`` for the reader's own record), ``{wins}``, ``{draws}`` and
    ``{losses}`` (each a number with its word)."""

    win: Mapping[str, str]
    draw: Mapping[str, str]
    loss: Mapping[str, str]
    line: str  # "{who}の通算成績は {wins} {draws} {losses}。"
    own: str  # the line about the reader's own record ("あなたの通算成績は ...")


def _forms(**forms: str) -> Mapping[str, str]:
    return MappingProxyType(dict(forms))


# chess's words (seed 000's report form in Japanese); a game without its own takes these
DEFAULT_SCORE_WORDS: Mapping[str, ScoreWords] = MappingProxyType({
    "ja": ScoreWords(win=_forms(other="勝"), draw=_forms(other="ドロー"), loss=_forms(other="敗"),
                     line="{who}の通算成績は {wins} {draws} {losses}。",
                     own="あなたの通算成績は {wins} {draws} {losses}。"),
    "en": ScoreWords(win=_forms(one="win", other="wins"), draw=_forms(one="draw", other="draws"),
                     loss=_forms(one="loss", other="losses"),
                     line="{who}'s score: {wins}, {draws}, {losses}.",
                     own="Your score: {wins}, {draws}, {losses}."),
})


@dataclass(frozen=True)
class MoveWords:
    """The noun and the verb of a move in one language, in the forms the mails need.

    Japanese players of chess and shogi 指す a 指し手; go players 打つ a 着手 (打ちました,
    打って), and read the chess words as another game's. English says ``move`` and
    ``play`` for every game; its forms are here so that the type is complete."""

    noun: str  # 指し手 / 着手 / move: "あなたの{noun} e4 を受け付け"
    past: str  # 指しました / 打ちました / played: "ボットが ... を{past}"
    present: str  # 指します / 打ちます / plays: "応手はボットが{present}"
    te: str  # 指して / 打って / playing: "手を{te}送り直してください", "{te}いますが"
    plain: str  # 指す / 打つ / play: "相手が予想どおりの手を{plain}と"
    cannot: str  # 指せない / 打てない / cannot be played: "この局面では{cannot}手"
    # a drawn game as offers name it: chess's ドロー; shogi says 引き分け (its score line's
    # word); a keyword the gate reads in either spelling
    draw: str = "ドロー"


# chess's and shogi's words; a game without its own takes these
DEFAULT_MOVE_WORDS: Mapping[str, MoveWords] = MappingProxyType({
    "ja": MoveWords(noun="指し手", past="指しました", present="指します", te="指して",
                    plain="指す", cannot="指せない"),
    "en": MoveWords(noun="move", past="played", present="plays", te="playing",
                    plain="play", cannot="cannot be played", draw="draw"),
})


def _lang(lang: str) -> str:
    return "ja" if lang == "ja" else "en"


def result_words(rules: GameRules, outcome: Outcome, lang: str) -> str:
    """The result of ``outcome`` as a reader of ``lang`` says it, in the game's own words
    (its ``result_words``), else as the game writes results (``format_result``)."""
    own: Any = getattr(rules, "result_words", None)
    if own is not None:
        said = own(outcome, _lang(lang))
        if said:
            return str(said)
    return rules.format_result(outcome)


def termination_words(rules: GameRules, termination: str, lang: str) -> str:
    """How a game ended, in the game's own words where it has them, else in the words
    every game shares; "" for an ending neither knows (a template may then say it)."""
    own: Any = getattr(rules, "termination_words", None)
    if own is not None:
        said = own(termination, _lang(lang))
        if said:
            return str(said)
    return common_termination(termination, lang, "")


def common_termination(termination: str, lang: str, unknown: str | None = None) -> str:
    """An ending every game shares, in ``lang`` (``resignation`` is 投了). For one not
    listed: ``unknown`` when given, else a neutral word (never an English code in
    Japanese)."""
    names = COMMON_TERMINATIONS[_lang(lang)]
    if termination in names:
        return names[termination]
    if unknown is not None:
        return unknown
    return termination.replace("_", " ") if _lang(lang) == "en" else names[""]


_Words = TypeVar("_Words", ScoreWords, MoveWords)


def _game_words(rules: GameRules, hook: str, lang: str, kind: type[_Words],
                default: Mapping[str, _Words]) -> _Words:
    """The game's own words by its optional ``hook(lang)``, else ``default``'s."""
    own: Any = getattr(rules, hook, None)
    if own is not None:
        said = own(_lang(lang))
        if isinstance(said, kind):
            return said
    return default[_lang(lang)]


def score_words(rules: GameRules, lang: str) -> ScoreWords:
    """The words of a score line of this game in ``lang`` (the game's ``score_words``,
    else chess's)."""
    return _game_words(rules, "score_words", lang, ScoreWords, DEFAULT_SCORE_WORDS)


def move_words(rules: GameRules, lang: str) -> MoveWords:
    """The noun and the verb of a move of this game in ``lang`` (the game's
    ``move_words``, else chess's and shogi's 指し手 / 指す)."""
    return _game_words(rules, "move_words", lang, MoveWords, DEFAULT_MOVE_WORDS)
