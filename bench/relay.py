"""Relay throughput and referee benchmarks, run by hand (see bench/README.md).

    python -m bench.relay                  # 200 games, 2,000 move mails (~2-3 minutes)
    python -m bench.relay --smoke          # a few seconds, for CI
    python -m bench.relay --profile        # also cProfile the bot's cycles

Three figures:

1. relaybot: a real Dovecot and the aiosmtpd sink on loopback, a SQLite store with
   ``2 * games`` members and ``games`` games. Move mails (each carrying the whole game
   from move 1 plus one new legal move, from the right player) arrive by APPEND in
   rounds, one ply for every game per round, and each round is one timed
   ``relaybot.app.runner.run_once`` (IMAP fetch, referee, commit, MOVE, SMTP send).
2. null relay: the same mails, the same servers (its own mailbox), interleaved round by
   round with the bot: fetch (``BODY.PEEK[]`` + ``INTERNALDATE``), send on by SMTP to
   one recipient, MOVE to ``Processed``; one IMAP and one SMTP connection per round,
   as ``run_once`` opens per cycle. No parsing, no checks, no database.
3. incremental referee: ``decide`` on a mail with a 300-ply game plus one new ply
   against the stored game, versus replaying every token with ``parse_move``.

Only the bot's (and the null relay's) processing is timed; APPEND is not. The SMTP
sink runs in a child process so its parsing of captured mail does not compete with
the timed code for the GIL (a real MTA is another process too).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import logging
import pstats
import random
import shutil
import smtplib
import statistics
import sys
import tempfile
import textwrap
import time
import timeit
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime
from multiprocessing.connection import Connection
from pathlib import Path

import chess
from imapclient import IMAPClient  # type: ignore[import-untyped]
from sqlalchemy import func, select

from bench.child import Child
from bench.shogi import ShogiResult, shogi_bench
from bench.shogi import row as shogi_row
from relaybot.app.poller import BATCH_MAILS
from relaybot.app.runner import CycleReport, run_once
from relaybot.app.service import start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig, new_secret
from relaybot.core import tokens
from relaybot.core.referee import StoredGame, decide, first_difference
from relaybot.games.chess import RULES
from relaybot.games.chess.notation import extract_record, parse_move
from relaybot.store.db import Store, migrate
from relaybot.store.models import Outbox
from tests.servers.dovecot import Account, Dovecot
from tests.servers.postgres import pg_schema_url

RELAY = "relay@club.example"
TD = "td@club.example"
NULL_RCPT = "null@players.example"
PLAYER_DOMAIN = "players.example"
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
ROUND = timedelta(hours=12)

TARGET_RATIO = 0.8
TARGET_SPEEDUP = 10.0


# -- the SMTP sink, in a child process ---------------------------------------------------


def _sink_child(conn: Connection) -> None:
    """Run :class:`SmtpSink` until told to stop; answer ``count`` with the mail taken since."""
    from tests.servers.smtp_sink import SmtpSink

    sink = SmtpSink()
    sink.start()
    conn.send((sink.host, sink.port))
    try:
        while True:
            command = conn.recv()
            if command == "count":  # only asked between cycles, when nothing is in flight
                got = sink.captured
                sink.clear()
                conn.send(Counter(r for c in got for r in c.rcpt_tos))
            else:
                break
    finally:
        sink.stop()


class SinkProcess(Child):
    """The aiosmtpd sink of ``tests.servers.smtp_sink`` in a forked child."""

    def __init__(self) -> None:
        super().__init__(_sink_child)
        self.host, self.port = self.hello

    def take(self) -> Counter[str]:
        """Recipients of the mail captured since the last call (and forget it)."""
        self._conn.send("count")
        counts: Counter[str] = self._conn.recv()
        return counts



# -- games and mails -------------------------------------------------------------------


def random_game(rng: random.Random, plies: int) -> list[chess.Move]:
    """``plies`` random legal moves after none of which the game is over."""
    while True:
        board = chess.Board()
        moves: list[chess.Move] = []
        while len(moves) < plies:
            choices = list(board.legal_moves)
            rng.shuffle(choices)
            for move in choices:
                board.push(move)
                if board.outcome(claim_draw=False) is None:
                    moves.append(move)
                    break
                board.pop()
            else:
                break  # every move ends the game: start again
        if len(moves) == plies:
            return moves


def san_record(moves: Sequence[chess.Move]) -> str:
    """``1. e4 e5 2. Nf3 ...`` as a player writes it, wrapped like a mail client."""
    board = chess.Board()
    parts: list[str] = []
    for move in moves:
        if board.turn == chess.WHITE:
            parts.append(f"{board.fullmove_number}.")
        parts.append(board.san(move))
        board.push(move)
    return textwrap.fill(" ".join(parts), width=72, break_long_words=False)


@dataclass(frozen=True)
class Member:
    name: str
    address: str
    lang: str
    tz: str
    member_id: int = 0  # the store's id, once added (the reply token is issued to it)


@dataclass
class BenchGame:
    game_id: str
    white: Member
    black: Member
    moves: list[chess.Move]
    reply_to: tuple[str, str] = ("", "")  # each player's token address for the game
    mails: list[bytes] = field(default_factory=list)


def move_mail(game: BenchGame, ply: int, when: datetime) -> bytes:
    """Ply ``ply`` (0-based) of ``game`` from the right player, whole game in the body."""
    player = game.white if ply % 2 == 0 else game.black
    msg = EmailMessage()
    local, domain = player.address.split("@")
    msg["From"] = Address(display_name=player.name, username=local, domain=domain)
    # a mail client replies to the Reply-To: the game's token address issued to this
    # player, which proves the sender (INTERFACE.md "Who may act"; else the mail is held)
    msg["To"] = game.reply_to[ply % 2]
    msg["Subject"] = f"Re: [{game.game_id}] {game.white.name} - {game.black.name}"
    msg["Date"] = format_datetime(when)
    msg["Message-ID"] = f"<{game.game_id}.{ply}.bench@{PLAYER_DOMAIN}>"
    greeting = "こんにちは。" if player.lang == "ja" else "Hello,"
    body = (f"{greeting}\n\nMy move, with the game so far:\n\n"
            f"{san_record(game.moves[: ply + 1])}\n\nBest regards,\n{player.name}\n")
    msg.set_content(body)
    return msg.as_bytes()


def make_config(db_url: str, account: Account, smtp_host: str, smtp_port: int) -> Config:
    return Config(
        database=DatabaseConfig(url=db_url),
        bot=BotConfig(address=RELAY, timezone="Asia/Tokyo", language="en", td=TD,
                      secret=new_secret()),
        imap=ImapConfig(host=account.host, port=account.port, user=account.user,
                        password=account.password, tls="none", folder="INBOX"),
        smtp=SmtpConfig(host=smtp_host, port=smtp_port, user="", password="", tls="none",
                        timeout=30),
    )


def set_up_club(store: Store, cfg: Config, n_games: int, plies: int,
                rng: random.Random) -> list[BenchGame]:
    """Members, games and their start mails (queued; the caller's cycle sends them)."""
    members = [
        Member(f"Player {i:04d}", f"p{i:04d}@{PLAYER_DOMAIN}", "ja" if i % 3 == 0 else "en",
               "Asia/Tokyo" if i % 3 == 0 else "Europe/London")
        for i in range(2 * n_games)
    ]
    games: list[BenchGame] = []
    key = cfg.bot.token_keys()[0]
    local, domain = cfg.bot.address.split("@")
    with store.session() as session:
        for k, m in enumerate(members):
            member = add_member(session, cfg, MemberInput(m.name, m.address, lang=m.lang,
                                                          tz=m.tz), START)
            member.digest = "off"  # the relay is measured here; bench/digest.py does digests
            session.flush()
            members[k] = replace(m, member_id=member.id)
        for g in range(n_games):
            white, black = members[2 * g], members[2 * g + 1]
            game = create_game(session, cfg, GameInput(white=white.address, black=black.address,
                                                       event="Bench 2026"), START)
            start_mails(session, cfg, game, START)
            reply_to = tuple(
                tokens.format_address(local, domain, game.id,
                                      tokens.issue(key, game.id, str(p.member_id)))
                for p in (white, black))
            games.append(BenchGame(game.id, white, black, random_game(rng, plies),
                                   (reply_to[0], reply_to[1])))
    return games


# -- delivering and the null relay -----------------------------------------------------


def append_all(account: Account, mails: Sequence[tuple[bytes, datetime]]) -> None:
    """APPEND every mail to INBOX on one connection, by MULTIAPPEND if offered (not timed)."""
    with account.client(None) as imap:
        if imap.has_capability("MULTIAPPEND"):
            imap.multiappend("INBOX", [{"msg": raw, "date": when} for raw, when in mails])
            return
        for raw, when in mails:
            imap.append("INBOX", raw, msg_time=when)


def null_round(account: Account, smtp_host: str, smtp_port: int,
               replay: tuple[bytes, bytes]) -> int:
    """The transport alone, shaped as the bot's work: fetch the INBOX in batches of the
    poller's size (one FETCH of the batch's bodies and INTERNALDATEs), send per mail the
    bot's own forward and receipt of this round (``replay``: their bytes, so the same
    size and MIME shape), then MOVE the batch to ``Processed``; one IMAP and one SMTP
    connection per round, as ``run_once`` opens per cycle. No parsing, no database."""
    forward, receipt = replay
    imap = IMAPClient(account.host, port=account.port, use_uid=True, ssl=False, timeout=60)
    imap.normalise_times = False
    done = 0
    try:
        imap.login(account.user, account.password)
        if not imap.folder_exists("Processed"):
            imap.create_folder("Processed")
        imap.select_folder("INBOX")
        uids = sorted(int(u) for u in imap.search(["ALL"]))
        with smtplib.SMTP(smtp_host, smtp_port, timeout=60) as smtp:
            for start in range(0, len(uids), BATCH_MAILS):
                batch = uids[start:start + BATCH_MAILS]
                entries = imap.fetch(batch, [b"BODY.PEEK[]", b"INTERNALDATE"])
                for uid in batch:
                    _raw: bytes = entries[uid][b"BODY[]"]
                    smtp.sendmail(RELAY, [NULL_RCPT], forward)
                    smtp.sendmail(RELAY, [NULL_RCPT], receipt)
                    done += 1
                imap.move(batch, "Processed")
    finally:
        with contextlib.suppress(Exception):
            imap.logout()
    return done


def bot_replay(store: Store, since: int) -> tuple[bytes, bytes] | None:
    """One forward and one receipt the bot queued after outbox row ``since`` (this
    round's: as long as the null relay's mails grow with the game, so do these)."""
    with store.session() as session:
        forward, receipt = (session.scalar(
            select(Outbox.raw).where(Outbox.id > since, Outbox.kind == kind)
            .order_by(Outbox.id.desc()).limit(1)) for kind in ("move", "ack"))
    if forward is None or receipt is None:
        return None
    return forward, receipt


def last_outbox_id(store: Store) -> int:
    """The newest outbox row's id (0 for none)."""
    with store.session() as session:
        return session.scalar(select(func.max(Outbox.id))) or 0


class ErrorTally(logging.Handler):
    """Counts relaybot's log records of WARNING and up, keeping the first few messages,
    so a broken run prints a summary instead of a traceback per mail."""

    def __init__(self, keep: int = 3) -> None:
        super().__init__(logging.WARNING)
        self.count = 0
        self.first: list[str] = []
        self.keep = keep

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if len(self.first) < self.keep:
            error = record.exc_info[1] if record.exc_info else None
            self.first.append(record.getMessage() + (f": {error!r}" if error else ""))


# -- the relay benchmark ---------------------------------------------------------------


@dataclass
class RelayResult:
    backend: str = "sqlite"
    mails: int = 0
    bot_sent: int = 0
    null_sent: int = 0
    setup_seconds: float = 0.0
    deliver_seconds: float = 0.0
    round_mails: list[int] = field(default_factory=list)
    round_seconds: list[float] = field(default_factory=list)
    null_round_seconds: list[float] = field(default_factory=list)
    # this process's CPU time in each timed cycle (the sink and Dovecot are other
    # processes): steadier than the wall clock on a loaded machine, for comparing builds
    round_cpu: list[float] = field(default_factory=list)
    null_round_cpu: list[float] = field(default_factory=list)
    mail_bytes: tuple[int, int] = (0, 0)  # the last replayed forward and receipt
    compose_ms: float = 0.0  # the two mails of a move composed, nothing else
    problems: list[str] = field(default_factory=list)
    profile: str = ""
    stats: cProfile.Profile | None = None

    @property
    def bot_seconds(self) -> float:
        return sum(self.round_seconds)

    @property
    def null_seconds(self) -> float:
        return sum(self.null_round_seconds)

    def median_ms(self, seconds: Sequence[float]) -> float:
        """The median over the rounds of milliseconds per move mail."""
        per = [1000 * s / n for s, n in zip(seconds, self.round_mails, strict=True) if n]
        return statistics.median(per) if per else 0.0

    @property
    def ratio(self) -> float:
        """relaybot's speed as a share of the null relay's: null's cost per move over
        the bot's, medians of the rounds (1.0: the bot costs what the transport does)."""
        bot = self.median_ms(self.round_seconds)
        return self.median_ms(self.null_round_seconds) / bot if bot else 0.0


def _check_cycle(report: CycleReport, expected: int, sunk: Counter[str], k: int,
                 problems: list[str]) -> None:
    outcomes = report.poll.outcomes or {}
    if report.poll.processed != expected or outcomes.get("move", 0) != expected:
        problems.append(f"round {k + 1}: processed {report.poll.processed}/{expected}, "
                        f"outcomes {outcomes}")
    if report.send.sent != 2 * expected or sum(sunk.values()) != 2 * expected:
        problems.append(f"round {k + 1}: sent {report.send.sent}, sink got "
                        f"{sum(sunk.values())}, expected {2 * expected} (forward + ack)")


@contextlib.contextmanager
def database_url(backend: str, workdir: Path) -> Iterator[str]:
    """A fresh store for ``backend``: a SQLite file in ``workdir``, or a scratch schema
    on the test PostgreSQL (dropped afterwards)."""
    if backend == "sqlite":
        yield f"sqlite:///{workdir / 'relaybot.db'}"
        return
    with pg_schema_url("bench") as url:
        yield url


def relay_bench(server: Dovecot, sink: SinkProcess, backend: str, n_games: int,
                n_mails: int, seed: int, profile: bool,
                db_dir: str | None = None) -> RelayResult:
    """The bot and the null relay, round by round on the same servers (see the module's
    docstring); ``backend`` is ``sqlite`` or ``postgresql``."""
    plies = max(1, n_mails // n_games)
    result = RelayResult(backend=backend)
    rng = random.Random(seed)
    profiler = cProfile.Profile() if profile else None
    workdir = Path(tempfile.mkdtemp(prefix="relaybot-bench-", dir=db_dir))
    try:
        with database_url(backend, workdir) as url:
            bot_box = server.new_account(f"bench-relay-{backend}")
            null_box = server.new_account(f"bench-null-{backend}")
            t0 = time.perf_counter()
            cfg = make_config(url, bot_box, sink.host, sink.port)
            store = Store.open(cfg.database.url)
            migrate(store.engine)
            games = set_up_club(store, cfg, n_games, plies, rng)
            while run_once(store, cfg, START).send.sent:  # the start mails (500 per cycle)
                pass
            started = sum(sink.take().values())
            if started != 2 * n_games:
                result.problems.append(f"start mails: sink got {started}, want {2 * n_games}")
            result.setup_seconds = time.perf_counter() - t0

            for k in range(plies):
                t0 = time.perf_counter()
                when = START + ROUND * (k + 1)
                batch = [(move_mail(g, k, when), when + timedelta(seconds=i))
                         for i, g in enumerate(games)]
                append_all(bot_box, batch)
                append_all(null_box, batch)
                result.deliver_seconds += time.perf_counter() - t0
                now = when + timedelta(seconds=len(batch) + 60)
                since = last_outbox_id(store)

                if profiler is not None:
                    profiler.enable()
                t0, c0 = time.perf_counter(), time.process_time()
                report = run_once(store, cfg, now)
                elapsed = time.perf_counter() - t0
                result.round_cpu.append(time.process_time() - c0)
                if profiler is not None:
                    profiler.disable()
                result.round_seconds.append(elapsed)
                result.round_mails.append(len(batch))
                sunk = sink.take()
                result.bot_sent += report.send.sent
                _check_cycle(report, len(batch), sunk, k, result.problems)

                replay = bot_replay(store, since)
                if replay is None:
                    result.problems.append(f"round {k + 1}: no forward and receipt to replay")
                    result.null_round_seconds.append(0.0)
                    continue
                result.mail_bytes = (len(replay[0]), len(replay[1]))
                t0, c0 = time.perf_counter(), time.process_time()
                relayed = null_round(null_box, sink.host, sink.port, replay)
                elapsed = time.perf_counter() - t0
                result.null_round_cpu.append(time.process_time() - c0)
                result.null_round_seconds.append(elapsed)
                null_sunk = sink.take()
                result.null_sent += null_sunk[NULL_RCPT]
                if relayed != len(batch) or null_sunk[NULL_RCPT] != 2 * len(batch):
                    result.problems.append(f"null round {k + 1}: relayed {relayed}, sink got "
                                           f"{null_sunk[NULL_RCPT]}, want {2 * len(batch)}")
                result.mails += len(batch)
            leftover = len(bot_box.uids()) + len(null_box.uids())
            if leftover:
                result.problems.append(f"{leftover} mail(s) left in INBOX")
            result.compose_ms = composing_ms(store, cfg, START + ROUND * (plies + 1))
            store.dispose()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if profiler is not None:
        result.profile = _profile_text(profiler)
        result.stats = profiler
    return result


def composing_ms(store: Store, cfg: Config, now: datetime, games: int = 20,
                 passes: int = 3) -> float:
    """What composing alone costs per move: for ``games`` of the bench's games, a mail of
    the forward's shape to each player (a status mail: the record, the board as text and
    as its picture from the reader's side, the HTML part, the token Reply-To), rendered,
    composed and flattened as the effects stage does, without reading a mail, deciding,
    storing or sending anything. The median over ``passes`` of CPU ms per game (this
    process's CPU time, the same measure as the bench's CPU row)."""
    from relaybot.mail.compose import compose, flatten
    from relaybot.pipeline.effects import rendered
    from relaybot.pipeline.lifecycle import load_game, player_mail
    from relaybot.store.models import Game

    with store.session() as session:
        files = [load_game(session, game, now)
                 for game in session.scalars(select(Game).order_by(Game.id).limit(games))]
        per_pass = []
        for _ in range(passes):
            t0 = time.process_time()
            for gf in files:
                for colour in (0, 1):
                    mail = player_mail(cfg, gf, colour, "status")
                    out = rendered(cfg, mail)  # the effects stage's own rendering
                    flatten(compose(
                        from_name=cfg.bot.name, from_addr=out.game_address or "",
                        to_name=mail.to.name, to_addr=mail.to.address, subject=out.subject,
                        body=out.body, message_id=f"bench.{gf.game.id}.{colour}@club.example",
                        date=now, reply_to=out.reply_to, alternative=out.alternative))
            per_pass.append(1000 * (time.process_time() - t0) / max(1, len(files)))
    return statistics.median(per_pass)


def _profile_text(profiler: cProfile.Profile, top: int = 25) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(r"relaybot/", 2 * top)
    return out.getvalue()


# -- the incremental referee -----------------------------------------------------------


@dataclass
class RefereeResult:
    plies: int
    decide_us: float
    replay_us: float
    extract_us: float
    compare_us: float
    cold_us: float  # decide with the record-line cache emptied first

    @property
    def speedup(self) -> float:
        """Against the cold decide: the honest figure for a mail whose lines are new."""
        return self.replay_us / self.cold_us


def stored_game(moves: Sequence[chess.Move]) -> StoredGame:
    """The stored game after ``moves``, keys as the store keeps them (see test_referee)."""
    board = RULES.start()
    plies: list[str] = []
    keys: list[frozenset[str]] = []
    for move in moves:
        ply = move.uci()
        keys.append(RULES.ply_keys(board, ply))
        RULES.play(board, ply)
        plies.append(ply)
    return StoredGame(plies=tuple(plies), keys=tuple(keys), position=RULES.save(board))


def full_replay(tokens: Sequence[str], plies: Sequence[str]) -> chess.Board:
    """Every token parsed on a fresh board from move 1 and compared with the record."""
    board = chess.Board()
    for index, token in enumerate(tokens):
        move = parse_move(board, token)
        if index < len(plies) and move.uci() != plies[index]:
            raise AssertionError(f"replay differs at ply {index}")
        board.push(move)
    return board


def best_of(fns: Sequence[Callable[[], object]], repeat: int, budget: float) -> list[float]:
    """Seconds per call of each function: the best of ``repeat`` timeit runs of about
    ``budget`` seconds each, the functions taking turns so load changes hit all alike."""
    timers = [timeit.Timer(fn) for fn in fns]
    numbers = []
    for timer in timers:
        number, spent = timer.autorange()
        numbers.append(max(1, int(number * budget / max(spent, 1e-9))))
    best = [float("inf")] * len(timers)
    for _ in range(repeat):
        for i, (timer, number) in enumerate(zip(timers, numbers, strict=True)):
            best[i] = min(best[i], timer.timeit(number) / number)
    return best


def referee_bench(seed: int, plies: int, repeat: int, budget: float) -> RefereeResult:
    moves = random_game(random.Random(seed), plies + 1)
    game = stored_game(moves[:plies])
    text = ("Dear TD,\n\nHere is the whole game and my move:\n\n"
            f"{san_record(moves)}\n\nBest regards,\nPlayer\n")
    sender = 0 if plies % 2 == 0 else 1
    verdict = decide(RULES, game, sender, text)
    if verdict.kind != "move" or verdict.new_plies != [moves[-1].uci()]:
        raise AssertionError(f"decide: {verdict.kind} {verdict.new_plies}")
    tokens = extract_record(text).tokens
    if len(tokens) != plies + 1:
        raise AssertionError(f"record has {len(tokens)} tokens, want {plies + 1}")
    if full_replay(tokens, game.plies).fen() != chess.Board(verdict.position).fen():
        raise AssertionError("replay and decide disagree on the position")
    from relaybot.games.chess.notation.record import _scan

    def cold() -> object:
        # A game's earlier mails usually wrap the record the same way, so in service most
        # lines are cached already; the target is checked without that help.
        _scan.cache_clear()
        return decide(RULES, game, sender, text)

    decide_s, replay_s, extract_s, compare_s, cold_s = best_of([
        lambda: decide(RULES, game, sender, text),
        lambda: full_replay(tokens, game.plies),
        lambda: extract_record(text),
        lambda: first_difference(RULES, game, tokens, "en"),
        cold,
    ], repeat, budget)
    return RefereeResult(plies=plies, decide_us=1e6 * decide_s, replay_us=1e6 * replay_s,
                         extract_us=1e6 * extract_s, compare_us=1e6 * compare_s,
                         cold_us=1e6 * cold_s)


# -- main ------------------------------------------------------------------------------


def _relay_rows(relay: RelayResult) -> Iterator[tuple[str, str, str]]:
    bot_ms = relay.median_ms(relay.round_seconds)
    null_ms = relay.median_ms(relay.null_round_seconds)
    ratio = relay.ratio
    forward, receipt = relay.mail_bytes
    yield (f"relaybot run_once, {relay.backend}", f"{bot_ms:8.2f} ms/move",
           f"median of {len(relay.round_seconds)} rounds; {relay.mails} moves in "
           f"{relay.bot_seconds:.2f} s, {relay.bot_sent} mails sent")
    yield (f"null relay, {relay.backend}", f"{null_ms:8.2f} ms/move",
           f"the bot's forward ({forward} B) and receipt ({receipt} B) replayed; "
           f"{relay.mails} moves in {relay.null_seconds:.2f} s, {relay.null_sent} sent")
    yield (f"CPU, {relay.backend}", f"{relay.median_ms(relay.round_cpu):8.2f} ms/move",
           f"this process's CPU per move, medians: the bot's; the null relay's "
           f"{relay.median_ms(relay.null_round_cpu):.2f} ms (steadier than the wall clock "
           "under load)")
    yield (f"ratio relaybot/null, {relay.backend}", f"{ratio:8.2f}",
           f"null's cost per move / the bot's; target >= {TARGET_RATIO}: "
           f"{'ok' if ratio >= TARGET_RATIO else 'BELOW'}")
    # what the target leaves the bot beyond the transport, beside one part of its work
    budget = null_ms / TARGET_RATIO - null_ms
    yield (f"composing alone, {relay.backend}", f"{relay.compose_ms:8.2f} ms/move",
           f"CPU for two mails of the forward's shape (pictures, templates, HTML, MIME), "
           f"nothing read, stored or sent; the target leaves the bot {budget:.2f} ms/move "
           f"beyond the transport for all its work")


def _rows(referee: RefereeResult,
          shogi: ShogiResult | None = None) -> Iterator[tuple[str, str, str]]:
    yield (f"decide, {referee.plies}+1 plies", f"{referee.cold_us:8.0f} us",
           "record lines never seen before (the line cache emptied first)")
    if shogi is not None:  # issue 16: beside the chess figure
        yield shogi_row(shogi)
    yield ("decide, lines cached", f"{referee.decide_us:8.0f} us",
           f"of which extract_record {referee.extract_us:.0f} us, "
           f"first_difference {referee.compare_us:.0f} us")
    yield (f"full replay, {referee.plies + 1} plies", f"{referee.replay_us:8.0f} us",
           "parse_move + push per token")
    yield ("speed-up replay/decide", f"{referee.speedup:8.1f}x",  # the cold decide
           f"target >= {TARGET_SPEEDUP:.0f}x: "
           f"{'ok' if referee.speedup >= TARGET_SPEEDUP else 'BELOW'}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.relay", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--mails", type=int, default=2000,
                        help="move mails in all (mails // games plies per game)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--smoke", action="store_true",
                        help="a tiny run (5 games, 10 mails, short timings) for the tests")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both",
                        help="the store the bot runs on (default: both, one after the other)")
    parser.add_argument("--db-dir", default=None,
                        help="where the SQLite file goes (default: the temp dir; "
                             "/dev/shm shows what fsync costs)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the bot's cycles (the figures then include its cost)")
    parser.add_argument("--profile-out", default=None, metavar="FILE",
                        help="with --profile: also write the raw cProfile stats of the last "
                             "backend here (for pstats or snakeviz)")
    parser.add_argument("--verbose", action="store_true",
                        help="let relaybot's log (tracebacks of failed mails) through")
    args = parser.parse_args(argv)
    tally = ErrorTally()
    if not args.verbose:
        bot_log = logging.getLogger("relaybot")
        bot_log.addHandler(tally)
        bot_log.propagate = False
    if args.smoke:
        args.games, args.mails = 5, 10
    if args.games < 1 or args.mails < args.games:
        parser.error("need --games >= 1 and --mails >= --games")
    repeat, budget = (3, 0.05) if args.smoke else (9, 0.2)
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)

    t0 = time.perf_counter()
    relays: list[RelayResult] = []
    sink = SinkProcess()  # first: forks before Dovecot's or anyone's threads exist
    try:
        with Dovecot() as server:
            for backend in backends:
                relays.append(relay_bench(server, sink, backend, args.games, args.mails,
                                          args.seed, args.profile, args.db_dir))
    finally:
        sink.stop()
    referee = referee_bench(args.seed, 300, repeat, budget)
    shogi = shogi_bench(best_of, repeat, budget)
    total = time.perf_counter() - t0

    plies = max(1, args.mails // args.games)
    print(f"relaybot bench: {args.games} games x {plies} plies = {plies * args.games} move "
          f"mails, {2 * args.games} members, {' and '.join(backends)}, Dovecot + aiosmtpd "
          f"on loopback{' (cProfile on)' if args.profile else ''}")
    rows = [row for relay in relays for row in _relay_rows(relay)]
    rows += list(_rows(referee, shogi))
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value}   {note}")
    for relay in relays:
        print(f"  {relay.backend}: seconds per round, bot:  "
              + " ".join(f"{s:.2f}" for s in relay.round_seconds))
        print(f"  {relay.backend}: seconds per round, null: "
              + " ".join(f"{s:.2f}" for s in relay.null_round_seconds))
        print(f"  {relay.backend}: setup {relay.setup_seconds:.1f} s, APPEND "
              f"{relay.deliver_seconds:.1f} s (untimed)")
    print(f"  total {total:.1f} s")
    problems = [f"{relay.backend}: {p}" for relay in relays for p in relay.problems]
    if args.profile_out and relays and relays[-1].stats is not None:
        relays[-1].stats.dump_stats(args.profile_out)
    for relay in relays:
        if relay.profile:
            print(f"-- cProfile, {relay.backend}")
            print(relay.profile)
    if tally.count:
        problems.append(f"relaybot logged {tally.count} warning(s)/error(s), first: "
                        + " | ".join(tally.first))
    for problem in problems:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
