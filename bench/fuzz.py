"""Long fuzz run for T12: ``python -m bench.fuzz [--mails 100000] [--seed 1]``.

Generates mail with tests/reliability/fuzzkit.py (structure, charsets, MIME trees,
move text aimed at real games), runs each through ``process_mail`` on an in-memory
SQLite store (a fresh club every 5,000 mails, so games keep restarting), and reports
uncaught exceptions and state changes that were not a legal, authorised move.
Exit status 1 if anything was found.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from tests.reliability.fuzzkit import FuzzClub, corpus, random_mail

CLUB_EVERY = 5_000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mails", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    started = time.monotonic()
    findings: list[str] = []
    legal = 0
    fc: FuzzClub | None = None
    mails = corpus()
    for i in range(args.mails):
        if i % CLUB_EVERY == 0:
            if fc is not None:
                legal += fc.legal_moves
                fc.store.dispose()
            fc = FuzzClub()
            for j, raw in enumerate(mails):
                findings += [f.problem for f in fc.check(raw, -j)]
        assert fc is not None
        findings += [f"mail {f.mail} (seed {args.seed}): {f.problem}"
                     for f in fc.check(random_mail(rng, fc.state, i), i)]
        if (i + 1) % 10_000 == 0:
            rate = (i + 1) / (time.monotonic() - started)
            print(f"{i + 1} mails, {len(findings)} findings, {rate:.0f} mails/s", flush=True)
    if fc is not None:
        legal += fc.legal_moves
    elapsed = time.monotonic() - started
    uncaught = sum(1 for f in findings if "uncaught" in f)
    print(f"fuzz: {args.mails} generated mails (+ corpus), seed {args.seed}, {elapsed:.0f} s; "
          f"legal moves applied: {legal}; uncaught exceptions: {uncaught}; "
          f"other broken promises: {len(findings) - uncaught}")
    for line in findings[:20]:
        print("  " + line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
