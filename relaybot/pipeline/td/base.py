"""What every TD command is built on: the :class:`Command` a family's module subclasses,
registered with :func:`command` in :data:`COMMANDS` under its English and Japanese names;
the :class:`Context` it runs in; the :class:`Done` it returns, in both languages; and the
words the families share.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from typing import ClassVar

from sqlalchemy.orm import Session

from relaybot.club.members import member_by_address
from relaybot.config import Config
from relaybot.core.clocks import local_day
from relaybot.core.said import Said
from relaybot.core.text import display_name
from relaybot.pipeline.effects import td_of
from relaybot.store.models import Game, Member


@dataclass(frozen=True)
class Done:
    """What one command did (``ok``) or why it did nothing, in both languages: the TD's
    confirmation is written in the bot's language (issue 15), the CLI prints English.
    ``command`` is the command's English name, ``command_ja`` its Japanese one."""

    command: str
    ok: bool
    said: Said
    games: tuple[str, ...] = ()  # the games it acted on (J19: the mail is in their exports)
    command_ja: str = ""

    @property
    def message(self) -> str:
        """What happened, in English (the CLI's line)."""
        return self.said.en

    def text(self, lang: str) -> str:
        """What happened, in ``lang``."""
        return self.said.in_lang(lang)

    def name(self, lang: str) -> str:
        """The command's name in ``lang`` (``forfeit``, 没収)."""
        return (self.command_ja or self.command) if lang == "ja" else self.command


def japanese_name(name: str) -> str:
    """A member named in a Japanese sentence: ``山田太郎さん``, ``Ann Smithさん``."""
    return display_name(name, "ja") + "さん"


@dataclass(frozen=True)
class Context:
    """What every command runs with: the transaction, the config, the moment, and the TD
    who gave the command (``td``: an address; None from the CLI, the operator's own)."""

    session: Session
    cfg: Config
    now: datetime
    td: str | None = None

    @property
    def today(self) -> date:
        """The day in the bot's zone (the day a TD decision takes effect)."""
        return local_day(self.now, self.cfg.bot.timezone)

    def may_act(self, game: Game) -> bool:
        """The game is this TD's: its event's ``--td``, else ``[bot] td`` (INTERFACE.md
        "TD commands"). The operator at the CLI may act on every game."""
        return self.td is None or td_of(self.session, self.cfg, game) == self.td

    @cached_property
    def td_member_id(self) -> int | None:
        """The member the commanding TD's address belongs to, when the TD is also a player
        (None for the operator at the CLI, and for a TD who is no member)."""
        if self.td is None:
            return None
        member = member_by_address(self.session, self.td)
        return member.id if member is not None else None

    def plays_in(self, game: Game) -> bool:
        """The commanding TD plays in ``game``: a decision on it would be their own."""
        return self.td_member_id is not None and self.td_member_id in (game.side0_id,
                                                                       game.side1_id)

    def own_game(self, game: Game) -> Said:
        """Why a TD's command on a game they play in did nothing."""
        return Said(f"game {game.id} is one you play in: a TD does not decide their own "
                    "game; the club's operator can, with relaybot td on the command line",
                    f"対局 {game.id} はあなた自身の対局です。自分の対局を TD として決めることは"
                    "できません（クラブの運営者がコマンドラインの relaybot td で行えます）")

    def own_member(self) -> Said:
        """Why a TD's command about themselves (their leave, their points) did nothing."""
        return Said("that is about you: a TD does not decide for themselves; the club's "
                    "operator can, with relaybot td on the command line",
                    "ご自身についての決定です。TD が自分のことを決めることはできません"
                    "（クラブの運営者がコマンドラインの relaybot td で行えます）")

    def barred(self, game: Game) -> Said | None:
        """Why this TD may not decide ``game`` (another TD's, or one they play in), or
        None when they may."""
        if not self.may_act(game):
            return self.not_yours(game)
        if self.plays_in(game):
            return self.own_game(game)
        return None

    def not_yours(self, game: Game) -> Said:
        """Why a command on another TD's game did nothing."""
        td = td_of(self.session, self.cfg, game)
        return Said(f"game {game.id} is not yours: its TD is {td}",
                    f"対局 {game.id} はあなたの担当ではありません（担当の TD は {td} です）")


class Command:
    """A TD command: ``name`` (canonical, English), ``aliases`` (Japanese, the first one
    its Japanese name), ``usage`` and ``usage_ja`` (how to write it, for a mistake)."""

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str]
    usage_ja: ClassVar[str]
    takes_rest: ClassVar[bool] = False  # the rest of the mail belongs to the command
    # what it changes: one game ("game") or a member ("member"); every command acts, so a
    # mail holding one is never read-only (core/reading.py reads it as "command")
    changes: ClassVar[str] = "game"
    # the command's first word is the one game it acts on (forfeit, adjudicate, result,
    # free): only such a command can lie within a game token's scope (G12)
    game_first: ClassVar[bool] = False

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        """Carry the command out in ``ctx.session``; never raises for a TD's mistake."""
        raise NotImplementedError

    def refuse(self, said: Said) -> Done:
        """A command that did nothing, and why."""
        return self._outcome(False, said)

    def done(self, said: Said, games: tuple[str, ...] = ()) -> Done:
        """A command that did what it says (to ``games``)."""
        return self._outcome(True, said, games)

    def _outcome(self, ok: bool, said: Said, games: tuple[str, ...] = ()) -> Done:
        return Done(self.name, ok, said, games,
                    command_ja=self.aliases[0] if self.aliases else "")

    def game_of(self, ctx: Context, word: str) -> Game | Done:
        """The game ``word`` names, when it exists and is this TD's to act on; else the
        refusal that says why."""
        game = ctx.session.get(Game, word.strip().lower())
        if game is None:
            return self.refuse(no_game(word))
        why = ctx.barred(game)
        return game if why is None else self.refuse(why)

    def misused(self) -> Done:
        """The command written wrong: how to write it."""
        return self.refuse(Said(f"usage: {self.usage}",
                                f"書き方が違います。書式: {self.usage_ja}"))


def member_named(ctx: Context, word: str) -> Member | None:
    """The member a TD's command names by any of their registered addresses (INTERFACE
    "Who may act": a member may have several, each registered), else None."""
    return member_by_address(ctx.session, word)


def no_game(word: str) -> Said:
    """No game has the id the TD wrote."""
    return Said(f"no game {word}", f"対局 {word} はありません")


COMMANDS: dict[str, Command] = {}


def command(cls: type[Command]) -> type[Command]:
    """Register a command class under its name and aliases."""
    instance = cls()
    for word in (cls.name, *cls.aliases):
        COMMANDS[word] = instance
    return cls
