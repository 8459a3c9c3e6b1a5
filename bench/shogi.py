"""Shogi decide time (issue 16): a 180-move shogi mail checked against its record.

The mail carries the whole record of a professional game (Habu - Fujii 2006, the test
data) as the bot writes it, 180 moves already stored plus the new 181st; ``decide``
compares the 180 with the record by their keys and parses and plays only the new one.
Target: under 5 ms. ``python -m bench.relay`` prints this figure beside chess's decide
figure; ``python -m bench.shogi`` prints it alone (no mail servers needed).
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from relaybot.core.referee import StoredGame, decide
from relaybot.games import rules_for
from tests.shogi_styles import pro_game

TARGET_MS = 5.0


@dataclass
class ShogiResult:
    plies: int
    decide_us: float

    @property
    def ok(self) -> bool:
        """Whether the decide time meets the target."""
        return self.decide_us / 1000 < TARGET_MS


def shogi_bench(best_of: Callable[[Sequence[Callable[[], object]], int, float], list[float]],
                repeat: int, budget: float) -> ShogiResult:
    """Seconds of ``decide`` on the whole 181-move record against 180 stored plies."""
    rules = rules_for("shogi")
    _, moves = pro_game()
    stored, new = moves[:-1], moves[-1]
    position = rules.start()
    keys: list[frozenset[str]] = []
    for ply in stored:
        keys.append(rules.ply_keys(position, ply))
        rules.play(position, ply)
    game = StoredGame(plies=tuple(stored), keys=tuple(keys), position=rules.save(position))
    text = ("よろしくお願いします。\n\n" + rules.format_record(moves, "ja")
            + "\n\nでは、また。\n")
    sender = len(stored) % 2
    verdict = decide(rules, game, sender, text)
    if verdict.kind != "move" or verdict.new_plies != [new]:
        raise AssertionError(f"decide: {verdict.kind} {verdict.new_plies}")
    (seconds,) = best_of([lambda: decide(rules, game, sender, text)], repeat, budget)
    return ShogiResult(plies=len(stored), decide_us=1e6 * seconds)


def row(result: ShogiResult) -> tuple[str, str, str]:
    """The table row ``bench.relay`` prints under chess's decide figure."""
    return (f"decide, shogi {result.plies}+1 plies", f"{result.decide_us:8.0f} us",
            f"whole KIF-style record; target < {TARGET_MS:.0f} ms: "
            f"{'ok' if result.ok else 'ABOVE'}")


def best_of(fns: Sequence[Callable[[], object]], repeat: int, budget: float) -> list[float]:
    """Seconds per call of each function, the best of ``repeat`` runs of ~``budget`` s."""
    timers = [timeit.Timer(fn) for fn in fns]
    best = []
    for timer in timers:
        number, spent = timer.autorange()
        number = max(1, int(number * budget / max(spent, 1e-9)))
        best.append(min(timer.timeit(number) / number for _ in range(repeat)))
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.shogi", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="short timings")
    args = parser.parse_args(argv)
    repeat, budget = (3, 0.05) if args.smoke else (9, 0.2)
    name, value, note = row(shogi_bench(best_of, repeat, budget))
    print(f"  {name}   {value}   {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
