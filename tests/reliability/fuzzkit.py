"""Mail fuzzing for T12 (the suite's short run) and bench/fuzz.py (the long run).

``random_mail(rng, state)`` builds one hostile or clumsy mail: structure (headers,
charsets, transfer encodings, MIME trees, sizes) and move text (records, castling
both ways, promotions, figurines, quotes, illegal moves), often aimed at a real
game and sometimes carrying the right next move, so that legal moves do happen.
``FuzzClub.check(raw)`` runs ``relaybot.app.service.process_mail`` on a SQLite store
and returns every broken promise: an uncaught exception, a game state change that
was not a legal move by the player to move (or a result by a player), more than
one error reply, or any reply to someone who is not a member.
"""

from __future__ import annotations

import base64
import quopri
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import chess
from sqlalchemy import func, select

from relaybot.app.service import Arrival, process_mail, start_mails
from relaybot.club.members import MemberInput, add_member
from relaybot.club.new_games import GameInput, create_game
from relaybot.config import BotConfig, Config, DatabaseConfig, ImapConfig, SmtpConfig
from relaybot.mail.inbound import parse_mail
from relaybot.store.db import Store, migrate
from relaybot.store.models import Game, Member, Outbox

RELAY = "relay@club.example"
TD = "td@club.example"
WHITE, BLACK, OTHER = "white@example.jp", "black@example.org", "other@example.net"
STRANGER = "stranger@evil.example"
CORPUS = Path(__file__).resolve().parents[1] / "data" / "mail"

FIGURINES = {"N": "♘", "B": "♗", "R": "♖", "Q": "♕", "K": "♔"}
JUNK_TOKENS = ["Ke9", "Nxz3", "e8=Q", "e1=N", "0-0-0", "O-O-O", "O-O", "0-0", "exd6 e.p.",
               "1.", "1...", "resign", "draw", "accept", "status", "help", "Qh4#", "??",
               "Nf3!?", "a9", "Bb5+", "½-½", "1-0", "ｅ４", "Ｎｆ３", "\u200bNf3", "e4\u00a0e5"]
CHARSETS = ["utf-8", "iso-2022-jp", "shift_jis", "euc-jp", "iso-8859-1", "us-ascii",
            "x-unknown", "utf-7", "", "utf-8\"; x=\"", "windows-1252"]


@dataclass
class FuzzState:
    """What the generator may know: game ids and their current plies."""

    games: dict[str, list[str]] = field(default_factory=dict)
    players: dict[str, tuple[str, str]] = field(default_factory=dict)


def _san_moves(plies: list[str]) -> tuple[list[str], list[str]]:
    """The record so far in SAN and the legal next moves in SAN."""
    board = chess.Board()
    record = []
    for uci in plies:
        move = chess.Move.from_uci(uci)
        record.append(board.san(move))
        board.push(move)
    return record, [board.san(m) for m in board.legal_moves]


def _numbered(sans: list[str]) -> str:
    return " ".join(f"{i // 2 + 1}. {s}" if i % 2 == 0 else s for i, s in enumerate(sans))


def move_text(rng: random.Random, plies: list[str]) -> str:
    """Body text about moves: often the right record, often mangled."""
    record, legal = _san_moves(plies)
    pick = rng.random()
    if legal and pick < 0.45:
        sans = [*record, rng.choice(legal)]
        text = _numbered(sans)
    elif pick < 0.6:
        text = _numbered(record + rng.sample(JUNK_TOKENS, k=rng.randint(1, 3)))
    elif pick < 0.7 and legal:
        san = rng.choice(legal)
        text = _numbered(record) + " " + "".join(FIGURINES.get(c, c) for c in san)
    elif pick < 0.8:
        text = " ".join(rng.choice(JUNK_TOKENS) for _ in range(rng.randint(1, 8)))
    else:
        text = "".join(rng.choice("1. e4e5Nf3O-0x+#=Q♘\n> \t") for _ in range(rng.randint(0, 60)))
    if rng.random() < 0.2:
        text = f"{text}\n\nOn Mon, relaybot wrote:\n> 1. e4 e5 2. Nf3\n> {rng.choice(JUNK_TOKENS)}"
    if rng.random() < 0.1:
        text = "> " + text
    return text


def _encode(rng: random.Random, text: str) -> tuple[bytes, str, str]:
    """Body bytes, charset label, Content-Transfer-Encoding."""
    charset = rng.choice(CHARSETS)
    codec = {"": "utf-8", "x-unknown": "utf-8", "utf-8\"; x=\"": "utf-8"}.get(charset, charset)
    try:
        data = text.encode(codec, "replace")
    except LookupError:
        data = text.encode("utf-8")
    cte = rng.choice(["7bit", "8bit", "quoted-printable", "base64", "x-bogus", "base64"])
    if cte == "quoted-printable":
        data = quopri.encodestring(data)
        if rng.random() < 0.5 and len(data) > 4:  # a soft break inside a move
            cut = rng.randrange(1, len(data))
            data = data[:cut] + b"=\r\n" + data[cut:]
    elif cte == "base64":
        data = base64.encodebytes(data)
        if rng.random() < 0.2:
            data = data[: rng.randrange(len(data) + 1)] + b"!!"
    if rng.random() < 0.05:
        data += b"\x00\x00"
    return data, charset, cte


def _leaf(rng: random.Random, text: str) -> bytes:
    data, charset, cte = _encode(rng, text)
    subtype = "html" if rng.random() < 0.15 else "plain"
    if subtype == "html":
        data = b"<html><body><p>" + data.replace(b"\n", b"<br>") + b"</p></body></html>"
    ct = f"text/{subtype}" + (f'; charset="{charset}"' if charset else "")
    return (f"Content-Type: {ct}\r\nContent-Transfer-Encoding: {cte}\r\n\r\n").encode() + data


def _tree(rng: random.Random, text: str, depth: int) -> bytes:
    if depth <= 0 or rng.random() < 0.5:
        return _leaf(rng, text)
    boundary = f"b{rng.randrange(10**9)}"
    kind = rng.choice(["alternative", "mixed", "related", "report", "signed"])
    parts = [_tree(rng, text, depth - 1) for _ in range(rng.randint(0, 3))]
    if rng.random() < 0.2:
        parts.append(b"Content-Type: application/octet-stream\r\n"
                     b"Content-Disposition: attachment; filename=\"../../etc/passwd\"\r\n"
                     b"Content-Transfer-Encoding: base64\r\n\r\n"
                     + base64.encodebytes(rng.randbytes(rng.randint(0, 3000))))
    body = b"".join(b"--" + boundary.encode() + b"\r\n" + p + b"\r\n" for p in parts)
    if rng.random() < 0.9:
        body += b"--" + boundary.encode() + b"--\r\n"
    declared = boundary if rng.random() < 0.9 else "missing"
    return (f'Content-Type: multipart/{kind}; boundary="{declared}"\r\n\r\n').encode() + body


OUR_MTA = "mx.club.example"  # the authserv-id the fuzzed club trusts ([bot] authserv_id)


def random_mail(rng: random.Random, state: FuzzState, serial: int) -> bytes:
    """One generated mail as raw bytes."""
    gid = rng.choice(sorted(state.games)) if state.games else "nogame"
    plies = state.games.get(gid, [])
    sender = rng.choice([WHITE, BLACK, WHITE, BLACK, OTHER, STRANGER, RELAY, TD + ".evil",
                         f"{WHITE})<{BLACK}>", "<>", f"{BLACK}, {WHITE}", "MAILER-DAEMON@x.jp",
                         f"=?utf-8?b?{base64.b64encode(WHITE.encode()).decode()}?= <{STRANGER}>",
                         f"\"{WHITE}\" <{STRANGER}>", f"{WHITE.upper()}"])
    verp = base64.b32encode(serial.to_bytes(10, "big")).decode().lower()
    to = rng.choice([f"relay+{gid}@club.example", RELAY, f"relay+b.{verp}@club.example",
                     "someone@else.example", f"RELAY+{gid.upper()}@CLUB.EXAMPLE"])
    subject = rng.choice([f"Re: [{gid}] move", f"【{gid}】", "hi", "",
                          "=?utf-8?B?W2cxXSBoaQ0KQmNjOiB2aWN0aW1AZXZpbC5leGFtcGxl?=",
                          "=?iso-2022-jp?B?GyRCJDMkcyRLJEEkTxsoQg==?=", "x" * 3000])
    headers = [f"From: {sender}", f"To: {to}", f"Subject: {subject}"]
    if rng.random() < 0.9:
        headers.append(f"Message-ID: <fz{serial}.{rng.randrange(10**6)}@fuzz.example>")
    for name, value in [("Reply-To", "victim@evil.example"), ("Sender", WHITE),
                        ("Auto-Submitted", rng.choice(["no", "auto-replied", ""])),
                        ("Precedence", rng.choice(["bulk", "first-class"])),
                        ("List-Id", "<l.example>"), ("Return-Path", "<>"),
                        ("In-Reply-To", "<nothing@club.example>"), ("Bcc", "victim@evil.example"),
                        ("From", STRANGER), ("X-Long", "y" * 70000)]:
        if rng.random() < 0.06:
            headers.append(f"{name}: {value}")
    text = move_text(rng, plies)
    if rng.random() < 0.03:
        body = _tree_deep(rng, text, rng.choice([30, 200]))
    elif rng.random() < 0.02:
        body = _many_parts(rng, text, rng.choice([600, 10_000]))
    else:
        body = _tree(rng, text, rng.randint(0, 4))
    if rng.random() < 0.35 and gid in state.players:  # a clean mail from the player to move
        mover = state.players[gid][len(plies) % 2]
        headers = [f"From: {mover}", f"To: relay+{gid}@club.example", f"Subject: Re: [{gid}]",
                   f"Message-ID: <ok{serial}.{rng.randrange(10**6)}@fuzz.example>",
                   # our MTA vouches for the player: the move acts at once (issue 12)
                   f"Authentication-Results: {OUR_MTA}; dmarc=pass "
                   f"header.from={mover.rpartition('@')[2]}"]
        body = b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + text.encode()
    head = "\r\n".join(headers).encode("utf-8", "replace")
    if rng.random() < 0.5:
        body = b"MIME-Version: 1.0\r\n" + body
    return head + b"\r\n" + body


def _tree_deep(rng: random.Random, text: str, depth: int) -> bytes:
    inner = _leaf(rng, text)
    for i in range(depth):
        b = f"d{i}".encode()
        inner = (b'Content-Type: multipart/mixed; boundary="' + b + b'"\r\n\r\n--' + b +
                 b"\r\n" + inner + b"\r\n--" + b + b"--\r\n")
    return inner


def _many_parts(rng: random.Random, text: str, count: int) -> bytes:
    parts = b"".join(b"--m\r\nContent-Type: text/plain\r\n\r\nx\r\n" for _ in range(count))
    return (b'Content-Type: multipart/mixed; boundary="m"\r\n\r\n--m\r\n' + _leaf(rng, text)
            + b"\r\n" + parts + b"--m--\r\n")


def corpus() -> list[bytes]:
    return [p.read_bytes() for p in sorted(CORPUS.glob("*.eml"))]


@dataclass
class Finding:
    mail: int
    problem: str


class FuzzClub:
    """A store with three members, two games and the start mails queued."""

    def __init__(self, url: str = "sqlite://") -> None:
        self.cfg = Config(
            database=DatabaseConfig(url=url),
            bot=BotConfig(address=RELAY, timezone="Asia/Tokyo", language="en", td=TD,
                          secret="fuzz-secret-for-tests-only", authserv_id=OUR_MTA),
            imap=ImapConfig(host="127.0.0.1", port=1, user="x", password="x", tls="none",
                            folder="INBOX", poll_seconds=1),
            smtp=SmtpConfig(host="127.0.0.1", port=1, user="", password="", tls="none",
                            timeout=5),
        )
        self.store = Store.open(url)
        migrate(self.store.engine)
        self.now = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
        self.uid = 0
        self.state = FuzzState()
        self.legal_moves = 0
        with self.store.session() as s:
            for name, addr in (("White, W", WHITE), ("Black, B", BLACK), ("Other, O", OTHER)):
                add_member(s, self.cfg, MemberInput(name, addr), self.now)
            for w, b in ((WHITE, BLACK), (OTHER, WHITE)):
                game = create_game(s, self.cfg, GameInput(w, b), self.now)
                start_mails(s, self.cfg, game, self.now)
                self.state.games[game.id] = []
                self.state.players[game.id] = (w, b)
        with self.store.session() as s:
            self.members = set(s.scalars(select(Member.email)))

    def _snapshot(self) -> tuple[dict[str, tuple[list[str], str, str | None, int, int]], int]:
        with self.store.session() as s:
            games = {g.id: (g.plies.split(), g.status, g.result, g.side0_id, g.side1_id)
                     for g in s.scalars(select(Game))}
            top = s.scalar(select(func.max(Outbox.id))) or 0
        return games, top

    def check(self, raw: bytes, serial: int) -> list[Finding]:
        """Process one mail; every broken T12 promise comes back as a Finding."""
        self.uid += 1
        self.now += timedelta(minutes=7)
        before, top = self._snapshot()
        out: list[Finding] = []
        try:
            process_mail(self.store, self.cfg, Arrival(raw, self.now, "INBOX", 1, self.uid),
                         self.now)
        except Exception as exc:
            return [Finding(serial, f"uncaught {type(exc).__name__}: {exc}")]
        after, _ = self._snapshot()
        mail = parse_mail(raw, own_addresses=[RELAY])
        with self.store.session() as s:
            emails = {m.id: m.email for m in s.scalars(select(Member))}
            rows = s.scalars(select(Outbox).where(Outbox.id > top)).all()
            new_rows = [(r.kind, r.recipient) for r in rows]
        for gid, (plies, status, result, side0_id, side1_id) in after.items():
            old_plies, old_status, old_result, _w, _b = before[gid]
            self.state.games[gid] = plies
            if (plies, status, result) == (old_plies, old_status, old_result):
                continue
            players = {emails[side0_id]: 0, emails[side1_id]: 1}
            colour = players.get(mail.from_addr or "")
            if mail.automated or colour is None:
                out.append(Finding(serial, f"{gid} changed by {mail.from_addr!r} "
                                           f"(automated={mail.automated})"))
                continue
            if plies != old_plies:
                if plies[: len(old_plies)] != old_plies:
                    out.append(Finding(serial, f"{gid}: earlier plies rewritten"))
                    continue
                board = chess.Board()
                for uci in old_plies:
                    board.push_uci(uci)
                if (0 if board.turn == chess.WHITE else 1) != colour:
                    out.append(Finding(serial, f"{gid}: a move by the side not to move"))
                for uci in plies[len(old_plies):]:
                    move = chess.Move.from_uci(uci)
                    if move not in board.legal_moves:
                        out.append(Finding(serial, f"{gid}: illegal ply {uci} stored"))
                        break
                    board.push(move)
                self.legal_moves += len(plies) - len(old_plies)
        errors = [r for r in new_rows if r[0].startswith("error_")]
        if len(errors) > 1:
            out.append(Finding(serial, f"{len(errors)} error replies"))
        for kind, rcpt in new_rows:
            if rcpt not in self.members and rcpt != TD:
                out.append(Finding(serial, f"{kind} mail to a non-member {rcpt}"))
            if kind.startswith("error_") and (mail.automated or rcpt != mail.from_addr):
                out.append(Finding(serial, f"error reply to {rcpt} for {mail.from_addr!r} "
                                           f"(automated={mail.automated})"))
        return out
