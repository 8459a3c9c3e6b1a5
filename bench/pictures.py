"""The board picture in mail (issue 15): each game's Pillow ``board_png`` against the
SVG rasterised by cairosvg (``relaybot.mail.html.board_png``, what a game without its
own picture gets), measured in the same run:

    python -m bench.pictures            # ms per picture, bytes, and the speed-up
    python -m bench.pictures --smoke    # short timings

Each game is timed on a position from the middle of a real game (chess: 40 random legal
plies; shogi: move 90 of the professional game in tests/data, pieces in hand on both
sides; go: 250 moves of the professional game in tests/data and a 9x9 opening), the way
``views.board_picture`` calls it: the loaded position in, PNG bytes out. The cairosvg
figure includes writing the SVG (``board_svg``), as the mail path does; its cache is
bypassed. Target: a Pillow picture in under 5 ms, faster than the SVG path. A miss is
printed, not failed: timings on shared machines are noisy.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import chess
from PIL import Image

from bench.go_mail import _game as go_game
from bench.shogi import best_of
from relaybot.games import rules_for
from relaybot.games.base import GameRules
from relaybot.games.go import picture as go_picture
from relaybot.mail.html import board_png as rasterise
from tests.shogi_styles import pro_game

TARGET_MS = 5.0


@dataclass
class PictureResult:
    name: str
    pillow_ms: float
    svg_ms: float
    pillow_bytes: int
    svg_bytes: int
    size: tuple[int, int]

    @property
    def speedup(self) -> float:
        return self.svg_ms / self.pillow_ms if self.pillow_ms else 0.0

    @property
    def ok(self) -> bool:
        return self.pillow_ms < TARGET_MS and self.pillow_ms < self.svg_ms


def positions() -> list[tuple[str, GameRules, object]]:
    """(name, rules, loaded position) of each case."""
    chess_rules, shogi, go = rules_for("chess"), rules_for("shogi"), rules_for("go")
    rng = random.Random(2026)
    board = chess.Board()
    for _ in range(40):
        board.push(rng.choice(list(board.legal_moves)))
        if board.is_game_over():
            board.pop()
    _, shogi_moves = pro_game()
    go19 = go.setup({"komi": "0"})
    for ply in go_game(250):
        go.play(go19, ply)
    go9 = go.setup({"size": "9"})
    for ply in ("e5", "c3", "g7", "c7", "d6", "f3"):
        go.play(go9, ply)
    return [
        ("chess, 40 plies", chess_rules, chess_rules.load(board.fen())),
        ("shogi, move 90", shogi, shogi.replay(shogi_moves[:90])),
        ("go 19x19, 250 moves", go, go19),
        ("go 9x9, 6 moves", go, go9),
    ]


def measure(name: str, rules: GameRules, position: object, repeat: int,
            budget: float) -> PictureResult:
    """Both paths on one position from the first seat (timed in turn, best of
    ``repeat``); go's cache of its last pictures is emptied before each, so every
    picture is drawn (in the mail path the move's receipt reuses the relayed picture)."""
    draw = getattr(rules, "board_png")  # noqa: B009 - optional in the protocol
    raw_rasterise = rasterise.__wrapped__  # the mail layer's cache would time nothing

    def pillow() -> object:
        go_picture._picture.cache_clear()
        return draw(position, 0)

    def svg() -> object:
        return raw_rasterise(rules.board_svg(position, 0))

    png, svg_png = draw(position, 0), raw_rasterise(rules.board_svg(position, 0))
    if not png:
        raise SystemExit(f"{name}: no Pillow picture (is a CJK font installed?)")
    pillow_s, svg_s = best_of([pillow, svg], repeat, budget)
    size = Image.open(io.BytesIO(png)).size
    return PictureResult(name, 1000 * pillow_s, 1000 * svg_s, len(png), len(svg_png), size)


def rows(results: Sequence[PictureResult]) -> list[str]:
    width = max(len(r.name) for r in results)
    lines = [f"  {'':<{width}}  {'Pillow':>9}  {'cairosvg':>9}  {'speed-up':>8}   "
             f"{'bytes (Pillow / cairosvg), pixels':<34}"]
    for r in results:
        lines.append(
            f"  {r.name:<{width}}  {r.pillow_ms:6.2f} ms  {r.svg_ms:6.1f} ms  "
            f"{r.speedup:7.1f}x   {r.pillow_bytes:>6} / {r.svg_bytes:<6} "
            f"{r.size[0]}x{r.size[1]}   target < {TARGET_MS:g} ms and faster: "
            f"{'ok' if r.ok else 'MISSED'}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pictures", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="short timings")
    args = parser.parse_args(argv)
    repeat, budget = (3, 0.05) if args.smoke else (7, 0.3)
    cases = positions()
    for _, rules, position in cases:  # layers, sprites and palettes made before timing
        getattr(rules, "board_png")(position, 0)  # noqa: B009
    results = [measure(name, rules, position, repeat, budget)
               for name, rules, position in cases]
    print(f"board picture per mail (ms per picture, best of {repeat}): each game's "
          "board_png vs its board_svg rasterised by cairosvg")
    for line in rows(results):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
