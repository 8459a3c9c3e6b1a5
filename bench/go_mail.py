"""Decide time of a 250-move go mail checked against its record (issue 17), by hand:

    python -m bench.go_mail            # prints the best decide time in ms (target < 5 ms)
    python -m bench.go_mail --runs 50

The game is the professional game of ``tests/data/go/`` (246 moves) continued with
legal moves to 249; the mail carries the whole record from move 1 in mixed styles
(``Q16``, ``q16``, SGF points, ``B[pd]`` nodes) plus move 250, and ``decide`` checks every
earlier move against the stored record's keys and plays the new one. Only ``decide`` is
timed; a miss of the target is printed, not failed (timings on shared machines are noisy).
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path

from sgfmill import sgf  # type: ignore[import-untyped]

from relaybot.core.referee import StoredGame, decide
from relaybot.games.go import RULES
from relaybot.games.go.notation import sgf_of_vertex, vertex_of_sgf

SOURCE = Path(__file__).parents[1] / "tests" / "data" / "go" / \
    "fujisawa-hosai-vs-go-seigen-1943-02-25.sgf"
LETTERS = "abcdefghijklmnopqrs"
TARGET_MS = 5.0


def _game(moves: int) -> list[str]:
    """``moves`` canonical plies: the source game, then the first legal points."""
    game = sgf.Sgf_game.from_bytes(SOURCE.read_bytes())
    board = RULES.setup({"komi": "0"})
    plies: list[str] = []
    for node in game.get_main_sequence()[1:]:
        _colour, (row, col) = node.get_move()
        ply = vertex_of_sgf(LETTERS[col] + LETTERS[18 - row], 19)
        assert ply is not None
        RULES.play(board, ply)
        plies.append(ply)
    candidates = (f"{c}{r}" for r in range(1, 20) for c in "abcdefghjklmnopqrst")
    while len(plies) < moves:
        ply = next(p for p in candidates if RULES.is_legal(board, p))
        RULES.play(board, ply)
        plies.append(ply)
    return plies


def _written(ply: int, canon: str) -> str:
    point = sgf_of_vertex(canon, 19) or canon
    return [canon.upper(), canon, point, f"{'BW'[ply % 2]}[{point}]"][ply % 4]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=250)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args(argv)
    plies = _game(args.moves)
    board = RULES.setup({"komi": "0"})
    keys = []
    for ply in plies[:-1]:
        keys.append(RULES.ply_keys(board, ply))
        RULES.play(board, ply)
    stored = StoredGame(plies=tuple(plies[:-1]), keys=tuple(keys), position=RULES.save(board))
    record = [f"{i + 1} {_written(i, p)}" for i, p in enumerate(plies)]
    mail = "Thank you for the game so far.\n\n" + "\n".join(
        "  ".join(record[k:k + 10]) for k in range(0, len(record), 10)) + "\n\nBest regards\n"
    sender = RULES.to_move(board)
    verdict = decide(RULES, stored, sender, mail)
    if verdict.kind != "move" or verdict.new_plies != plies[-1:]:
        print(f"the mail was not checked as a move: {verdict.kind} {verdict.error}")
        return 1
    best = min(timeit.repeat(lambda: decide(RULES, stored, sender, mail),
                             number=1, repeat=args.runs))
    ms = best * 1000
    print(f"go mail: {len(plies)} moves checked against the record, decide {ms:.2f} ms "
          f"(best of {args.runs}; target < {TARGET_MS:g} ms)"
          + ("" if ms < TARGET_MS else "  TARGET MISSED"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
