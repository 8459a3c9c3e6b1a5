"""Ratings per member and game kind (R1, R2, R4), applied once per finished game.

A member's rating in a kind lives in its ``member_ratings`` row; no row means unrated in
that kind, and the rating code then starts from the kind's default (``DEFAULT``). Chess
and shogi use the JCCA quick table and provisional Rb (R1, R2); go uses the salon's
points (R4): provisional until the chair sets official ones (seed 004 section 3), with a
rank that moves only through the win-rate gates (section 2). The R3 introduction bonus
is kept here, with the rating it comes from; the grades are :mod:`relaybot.club.grade_book`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.results import result_form
from relaybot.core.game import start_of
from relaybot.core.ratings import (
    OFFICIAL_AFTER,
    PROVISIONAL_AFTER,
    START_RATING,
    TELL_TD_AT,
    RatingState,
    TermsPlayed,
    apply_result,
    go_points,
    implied_points,
    next_rank,
    rank_code,
    rank_name,
    win_rate,
)
from relaybot.games import rules_for
from relaybot.store.models import (
    Game,
    GameEvent,
    Member,
    MemberRating,
    RatingChange,
    Tutorial,
)

KINDS = ("chess", "shogi", "go")
UNRATED_TERMINATIONS = ("withdrawal_void", "withdrawal_suspended")
# R1, seed 002 (11: 不戦勝・不戦敗…は除く; 8: 対戦開始後の棄権は、不戦敗): the shogi league
# rates no game a withdrawal decided, even one with play
SHOGI_UNRATED_TERMINATIONS = ("withdrawal_lost",)
# R4, seed 004 5)(5): 不戦勝、不戦敗は…次期の持点には反映させない: a go game won or lost by
# default (a TD's forfeit, a withdrawal) leaves the points as they were
GO_UNRATED_TERMINATIONS = ("forfeit", "withdrawal_lost")
# R1: an unrated player starts at 1200 provisional; R4: a go player of unknown strength
# starts at 0 points (seed 004: 初期値を「0」), provisional until the chair sets official
# points (section 3: 公認持点).
DEFAULT: dict[str, tuple[int, bool]] = {
    "chess": (START_RATING, True), "shogi": (START_RATING, True), "go": (0, True)}

def _default(kind: str) -> tuple[int, bool]:
    return DEFAULT.get(kind, (START_RATING, True))


@dataclass(frozen=True)
class RatingInput:
    """A rating an operator or TD sets (``member add/set --rating``, the CSV columns)."""

    kind: str
    rating: int
    provisional: bool


def rating_row(session: Session, member_id: int, kind: str) -> MemberRating | None:
    """The member's row for this game kind, or None while unrated in it."""
    return session.scalar(select(MemberRating).where(
        MemberRating.member_id == member_id, MemberRating.kind == kind))


def ratings_of(session: Session, member_id: int) -> dict[str, MemberRating]:
    """Every rating row of one member, by kind."""
    rows = session.scalars(select(MemberRating).where(MemberRating.member_id == member_id))
    return {row.kind: row for row in rows}


def current_ratings(session: Session, member_ids: Iterable[int], kind: str) -> dict[int, int]:
    """The ratings now in ``kind`` of those members who have one (no key: unrated)."""
    ids = list(member_ids)
    if not ids:
        return {}
    rows = session.execute(select(MemberRating.member_id, MemberRating.rating).where(
        MemberRating.member_id.in_(ids), MemberRating.kind == kind))
    return {member_id: rating for member_id, rating in rows}


def set_rating(session: Session, member: Member, value: RatingInput) -> MemberRating:
    """Set a member's rating in one kind (a TD-set value, R1).

    Official (``provisional`` False) means it is never replaced by Rb after 12 games
    (R2): that is how a JCCA member's existing rating is entered. The game count and
    the Rb record stay as they are, so a correction does not restart the provisional
    period. ``member`` must be flushed (it has an id).
    """
    row = rating_row(session, member.id, value.kind)
    if row is None:
        row = MemberRating(member_id=member.id, kind=value.kind, rated_games=0,
                           rb_opponents=[], rb_wins=0, rb_losses=0)
        session.add(row)
    row.rating = value.rating
    row.provisional = int(value.provisional)
    if value.kind == "go":
        # seed 004: the office's or the chair's figure gives the rank of the table; from
        # then on the rank moves through the win-rate gates (section 2)
        row.rank = rank_code(value.rating)
    else:
        # R3 (seed 000: 導入時および本レイティング認定時のレイティングに応じ一度だけ): an official
        # rating set before any rated game is the introduction, and gives the bonus (a
        # later correction before play replaces it); a provisional one gives none yet.
        # After play the bonus, once given, stays.
        if row.rated_games == 0:
            row.bonus_rating = value.rating if not row.provisional else None
        elif not row.provisional and row.bonus_rating is None:
            row.bonus_rating = value.rating
    return row


def state_of(row: MemberRating | None, kind: str = "chess") -> RatingState:
    """A rating state for the core; the kind's default when unrated (R1, R4)."""
    if row is None:
        rating, provisional = _default(kind)
        return RatingState(rating=rating, provisional=provisional)
    return RatingState(
        rating=row.rating,
        games=row.rated_games,
        provisional=bool(row.provisional),
        opponents=tuple(row.rb_opponents or ()),
        wins=row.rb_wins,
        losses=row.rb_losses,
        draws=row.draws or 0,
        rank=row.rank or "",
    )


def _store(row: MemberRating, state: RatingState) -> None:
    row.rating = state.rating
    row.rated_games = state.games
    row.provisional = int(state.provisional)
    row.rb_opponents = list(state.opponents)
    row.rb_wins = state.wins
    row.rb_losses = state.losses
    row.draws = state.draws
    row.rank = state.rank or None


def go_rank_of(row: MemberRating | None) -> str:
    """The go rank a member holds (seed 004 section 2), as a code (``1d``, ``4k``): the
    rank kept with the points, else the one the points give."""
    state = state_of(row, "go")
    return state.rank or rank_code(state.rating)


def display(row: MemberRating | None, kind: str = "chess", lang: str = "en") -> str:
    """The rating as published: ``(1320)`` while provisional (R2); go: ``85 1d`` when
    official, ``(85) 4k`` while provisional (seed 004 section 3), the rank in ``lang``."""
    state = state_of(row, kind)
    if kind == "go":
        points = f"({state.rating})" if state.provisional else str(state.rating)
        return f"{points} {rank_name(go_rank_of(row), lang)}"
    return state.display


def _row_for_update(session: Session, member_id: int, kind: str) -> MemberRating:
    row = rating_row(session, member_id, kind)
    if row is None:  # the first rated game in this kind: the default becomes a row
        rating, provisional = _default(kind)
        row = MemberRating(member_id=member_id, kind=kind, rating=rating,
                           provisional=int(provisional), rated_games=0, rb_opponents=[],
                           rb_wins=0, rb_losses=0)
        session.add(row)
    return row


def _jcca_result(game: Game) -> str | None:
    """The result as the quick table reads it, side 0 first, in the game's own words
    read by the game (:func:`relaybot.club.results.result_form`); None when not rated (R1):
    both losing is never rated, and the shogi league rates no draw (seed 002, 11:
    引き分け…期限切れ(双方負け)は除く)."""
    form = result_form(game)
    if form is None or form == "0-0" or (game.kind == "shogi" and form == "1/2-1/2"):
        return None
    return form


def _go_deltas(game: Game) -> tuple[int, int] | None:
    """R4: (side 0 = Black, side 1 = White) point changes; None when the game is not in
    the count (seed 004 section 2: no result, or a free game, which is a game played but
    leaves the points and the win rate alone). Only go's own result forms are read
    (``B+3.5``, ``W+R``, ``jigo``): a bare ``1-0`` would be ambiguous between colours and
    sides."""
    text = (game.result or "").strip()
    if not (text[:2].upper() in ("B+", "W+") or text.lower() in ("jigo", "持碁")):
        return None
    try:
        rules = rules_for(game.kind)
    except ValueError:  # go's rules are not installed here: count as the result says
        rules = None
    points = go_points(text, free_game=rules is not None and rules.free_game(game.position))
    if not points.win_rate:  # no result, or a free game: a game, but not in the count
        return None
    return points.black, points.white


def _next_states(game: Game, states: tuple[RatingState, RatingState]
                 ) -> tuple[RatingState, RatingState] | None:
    """Both sides' states after this finished game as it now reads (side 0 first); None
    when the game is not rated (R1, R4)."""
    if game.termination in UNRATED_TERMINATIONS or game.ply_count == 0:
        return None  # void, suspended, or a forfeit without play
    kind = game.kind
    if kind == "shogi" and game.termination in SHOGI_UNRATED_TERMINATIONS:
        return None
    if kind == "go":
        if game.termination in GO_UNRATED_TERMINATIONS:
            return None
        go = _go_deltas(game)
        if go is None:
            return None
        first, second = (_salon_after(s, d) for s, d in zip(states, go, strict=True))
        return first, second
    result = _jcca_result(game)
    if result is None:
        return None
    default = _default(kind)[0]
    start0 = game.side0_rating if game.side0_rating is not None else default
    start1 = game.side1_rating if game.side1_rating is not None else default
    return apply_result(states[0], states[1], start0, start1, result)


def _salon_after(state: RatingState, delta: int) -> RatingState:
    """Seed 004 section 2: a counted game's +1 / -1 / 0 (jigo), the record in the count,
    and the rank through the win-rate gates; provisional points stay provisional."""
    wins = state.wins + (delta > 0)
    losses = state.losses + (delta < 0)
    draws = state.draws + (delta == 0)
    points = state.rating + delta
    rank = next_rank(state.rank or rank_code(state.rating), points, wins, losses, draws)
    return replace(state, rating=points, games=state.games + 1, wins=wins, losses=losses,
                   draws=draws, rank=rank, opponents=())


def _bonus_after(before: RatingState, after: RatingState, bonus: int | None) -> int | None:
    """R3: the introduction bonus is due once, when a provisional rating becomes
    official (seed 000: 本レイティング認定時のレイティング): the rating after that game."""
    if bonus is None and before.provisional and not after.provisional:
        return after.rating
    return bonus


def _snapshot(state: RatingState, bonus: int | None) -> dict[str, Any]:
    return {"rating": state.rating, "games": state.games, "provisional": state.provisional,
            "opponents": list(state.opponents), "wins": state.wins, "losses": state.losses,
            "draws": state.draws, "rank": state.rank, "bonus": bonus}


def _from_snapshot(snap: dict[str, Any]) -> tuple[RatingState, int | None]:
    return RatingState(rating=int(snap["rating"]), games=int(snap["games"]),
                       provisional=bool(snap["provisional"]),
                       opponents=tuple(int(r) for r in snap["opponents"]),
                       wins=int(snap["wins"]), losses=int(snap["losses"]),
                       draws=int(snap.get("draws", 0)), rank=str(snap.get("rank", ""))
                       ), snap.get("bonus")


def rate_game(session: Session, game: Game, now: datetime) -> bool:
    """Apply the rating change of a finished game to both players' rows for its kind;
    False when it is not rated or already was.

    JCCA kinds: the change comes from the ratings at the game's start (R1) and is added
    to the ratings now. Go: winner +1, loser -1, jigo 0 but counted (R4). A game
    without play (no ply at all) is not rated; one that ended after 1. e4 was played and
    is (issue 13: the seeds rate every game with play). Each change keeps both players'
    whole states around it, for a later correction (:func:`rerate_game`).
    """
    if _next_states(game, (RatingState(), RatingState())) is None:
        return False
    if session.get(Tutorial, game.id) is not None:
        return False  # seed 000: a tutorial game is practice, never rated (issue 30)
    done = session.scalar(select(RatingChange.id).where(RatingChange.game_id == game.id))
    if done is not None:
        return False  # never twice for one game
    kind = game.kind
    rows = (_row_for_update(session, game.side0_id, kind),
            _row_for_update(session, game.side1_id, kind))
    states = (state_of(rows[0], kind), state_of(rows[1], kind))
    new = _next_states(game, states)
    assert new is not None
    for row, before, after in zip(rows, states, new, strict=True):
        bonus = _bonus_after(before, after, row.bonus_rating)
        session.add(RatingChange(game_id=game.id, member_id=row.member_id,
                                 before=before.rating, after=after.rating, at=now,
                                 state_before=_snapshot(before, row.bonus_rating),
                                 state_after=_snapshot(after, bonus)))
        _store(row, after)
        row.bonus_rating = bonus
    return True


def _score(game: Game, member_id: int) -> float:
    """The member's score in a rated JCCA-kind game (1, 0.5, 0)."""
    result = _jcca_result(game)
    if result == "1/2-1/2":
        return 0.5
    won_by_side0 = result == "1-0"
    return 1.0 if won_by_side0 == (game.side0_id == member_id) else 0.0


def _legacy_before(change: RatingChange, row: MemberRating,
                   history: Sequence[tuple[RatingChange, Game]]) -> tuple[RatingState, int | None]:
    """The state before ``change`` for a change recorded before states were kept: the
    rating it names, the games before it, and the provisional record as far as the
    member's row and earlier games tell it (the Rb record grows over the first 12)."""
    index = next(i for i, (c, _g) in enumerate(history) if c.id == change.id)
    was_provisional_once = bool(row.rb_opponents)
    provisional = bool(row.provisional) or (was_provisional_once and index < OFFICIAL_AFTER)
    known = list(row.rb_opponents or ())[:min(index, PROVISIONAL_AFTER)]
    scores = [_score(g, change.member_id) for _c, g in history[:len(known)]]
    state = RatingState(rating=change.before, games=index, provisional=provisional,
                        opponents=tuple(known), wins=sum(1 for x in scores if x == 1),
                        losses=sum(1 for x in scores if x == 0))
    return state, (None if provisional else row.bonus_rating)


def _same_rating(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    if a is None or b is None:
        return True  # nothing to compare: assume no change between
    return (a["rating"], bool(a["provisional"])) == (b["rating"], bool(b["provisional"]))


def _moment(session: Session, game: Game, own: Sequence[RatingChange]) -> tuple[datetime, int]:
    """Where ``game`` stands in the order games were rated: its own change, or, for a game
    rated only now (a void game given a result), the moment it ended."""
    if own:
        first = min(own, key=lambda c: (c.at, c.id))
        return first.at, first.id
    at = session.scalar(select(GameEvent.at).where(
        GameEvent.game_id == game.id, GameEvent.kind == "result")
        .order_by(GameEvent.id.desc()).limit(1))
    return (at if at is not None else game.updated_at), 2**62  # after that moment's changes


def _take_up(current: tuple[RatingState, int | None], snap: dict[str, Any]
             ) -> tuple[RatingState, int | None]:
    """The replayed state after a rating the TD set between two games (``snap``: the state
    the next game found): its rating and provisional flag, and the bonus it gave (R3)."""
    state, bonus = current
    return (replace(state, rating=int(snap["rating"]), provisional=bool(snap["provisional"]),
                    rank=str(snap.get("rank", state.rank))),
            bonus if bonus is not None else snap.get("bonus"))


def rerate_game(session: Session, game: Game, now: datetime) -> dict[int, tuple[int, int]]:
    """Re-rate both players after ``game``'s result was corrected (a TD's ``result``):
    their rating history in the game's kind is replayed in order from this game on (R1,
    R2: a provisional player's Rb after 12 games and the official rating after 20 depend
    on every result before them; R3: so does the bonus). Returns each player's rating
    before and after the correction.

    Only these two players' states are replayed. Their opponents' changes in later games
    came from the start ratings recorded with those games (R1), which stay as they were,
    as do the start ratings printed in those games' reports (J15). A rating the TD set
    between two games is kept: the replay takes it up where it was set.
    """
    kind = game.kind
    tracked = (game.side0_id, game.side1_id)
    # no row: unrated in this kind, and stays so unless the game is now rated
    rows = {m: rating_row(session, m, kind) for m in tracked}
    old = {m: state_of(rows[m], kind).rating for m in tracked}
    wrote = {m: False for m in tracked}
    history = {m: [(c, g) for c, g in session.execute(
        select(RatingChange, Game).join(Game, Game.id == RatingChange.game_id)
        .where(RatingChange.member_id == m, Game.kind == kind)
        .order_by(RatingChange.at, RatingChange.id)).all()] for m in tracked}
    own = [c for c, _g in history[tracked[0]] + history[tracked[1]] if c.game_id == game.id]
    moment = _moment(session, game, own)

    def later(c: RatingChange) -> bool:
        return c.game_id == game.id or (c.at, c.id) >= moment

    states: dict[int, tuple[RatingState, int | None]] = {}
    replay: dict[str, tuple[tuple[datetime, int], Game]] = {game.id: (moment, game)}
    changes: dict[tuple[str, int], RatingChange] = {}
    for m in tracked:
        mine = [(c, g) for c, g in history[m] if later(c)]
        for c, g in mine:
            changes[(g.id, m)] = c
            key = (c.at, c.id)
            if g.id not in replay or key < replay[g.id][0]:
                replay[g.id] = (key if g.id != game.id else moment, g)
        row = rows[m]
        if not mine:
            states[m] = (state_of(row, kind), row.bonus_rating if row is not None else None)
        elif mine[0][0].state_before is not None:
            states[m] = _from_snapshot(mine[0][0].state_before)
        else:
            assert row is not None  # a recorded change made the row
            states[m] = _legacy_before(mine[0][0], row, history[m])
    last_after: dict[int, dict[str, Any] | None] = {m: None for m in tracked}
    for _key, h in sorted(replay.values(), key=lambda item: item[0]):
        sides = (h.side0_id, h.side1_id)
        for m in tracked:
            ch = changes.get((h.id, m))
            if m in sides and ch is not None and ch.state_before is not None \
                    and not _same_rating(last_after[m], ch.state_before):
                states[m] = _take_up(states[m], ch.state_before)
        pair = tuple(states[s][0] if s in tracked else RatingState() for s in sides)
        new = _next_states(h, (pair[0], pair[1]))
        for side, m in enumerate(sides):
            if m not in tracked:
                continue
            ch = changes.get((h.id, m))
            if ch is not None:
                last_after[m] = ch.state_after
            if new is None:  # only the corrected game can stop being rated
                if ch is not None:
                    session.delete(ch)
                continue
            before, bonus = states[m]
            after = new[side]
            bonus_after = _bonus_after(before, after, bonus)
            if ch is None:
                ch = RatingChange(game_id=h.id, member_id=m, at=moment[0])
                session.add(ch)
            ch.before, ch.after = before.rating, after.rating
            ch.state_before = _snapshot(before, bonus)
            ch.state_after = _snapshot(after, bonus_after)
            states[m] = (after, bonus_after)
            wrote[m] = True
    for m in tracked:
        st, bonus = states[m]
        if rows[m] is None and not wrote[m]:
            continue  # still unrated in this kind
        row = _row_for_update(session, m, kind)
        if last_after[m] is not None and not _same_rating(
                last_after[m], {"rating": row.rating, "provisional": row.provisional}):
            # the TD set the rating after the last game: it stays
            st = replace(st, rating=row.rating, provisional=bool(row.provisional),
                         rank=row.rank or st.rank)
        _store(row, st)
        row.bonus_rating = bonus
    session.flush()
    return {m: (old[m], state_of(rating_row(session, m, kind), kind).rating) for m in tracked}


def _go_free_games(session: Session, member_id: int) -> int:
    """Seed 004 section 2: the member's finished free games (7 stones or more, 9x9 and
    13x13, or unrecorded at a player's wish) with a result: games, not in the count."""
    try:
        rules = rules_for("go")
    except ValueError:
        return 0
    found = 0
    for g in session.scalars(select(Game).where(
            Game.kind == "go", Game.status == "finished",
            (Game.side0_id == member_id) | (Game.side1_id == member_id))):
        if g.termination in GO_UNRATED_TERMINATIONS + UNRATED_TERMINATIONS or not g.ply_count:
            continue
        if result_form(g) is not None and rules.free_game(g.position):
            found += 1
    return found


def _jcca_record(session: Session, member_id: int, kind: str) -> tuple[int, int, int]:
    """Wins, losses and draws in the member's rated games of ``kind``."""
    wins = losses = draws = 0
    for game in session.scalars(select(Game).join(RatingChange, RatingChange.game_id == Game.id)
                                .where(RatingChange.member_id == member_id,
                                       Game.kind == kind)):
        score = _score(game, member_id)
        wins, losses, draws = wins + (score == 1), losses + (score == 0), draws + (score == 0.5)
    return wins, losses, draws


def ratings_json(session: Session, member: Member) -> dict[str, dict[str, Any]]:
    """``member show --json``'s ``ratings``: per kind the rating, whether official, the
    games and their wins, losses and draws; go adds the rank (``1d``, ``4k``), the games
    in the count (``counted``: not free, not void) and the win rate over them (seed 004
    sections 2, 3): its ``games`` are the counted games and the free ones."""
    out: dict[str, dict[str, Any]] = {}
    for kind, row in ratings_of(session, member.id).items():
        state = state_of(row, kind)
        if kind == "go":
            rate = win_rate(state.wins, state.losses, state.draws)
            out[kind] = {"rating": state.rating, "official": not state.provisional,
                         "games": state.games + _go_free_games(session, member.id),
                         "wins": state.wins, "losses": state.losses, "draws": state.draws,
                         "rank": go_rank_of(row), "counted": state.games,
                         "win_rate": None if rate is None else round(rate, 3)}
            continue
        wins, losses, draws = _jcca_record(session, member.id, kind)
        out[kind] = {"rating": state.rating, "official": not state.provisional,
                     "games": state.games, "wins": wins, "losses": losses, "draws": draws}
    return out


def go_points_notice(session: Session, member_id: int) -> dict[str, Any] | None:
    """Seed 004 section 3 (公認持点は、対戦数10局以上を目安に、チェアーパーソンが…決定):
    once a member on provisional points reaches 10 counted games, what the TD is told,
    once (the row remembers it): the record, the win rate, the points now and the points
    the results imply (:func:`relaybot.core.ratings.implied_points`). None otherwise."""
    row = rating_row(session, member_id, "go")
    if row is None or not row.provisional or row.told_td or row.rated_games < TELL_TD_AT:
        return None
    member = session.get(Member, member_id)
    assert member is not None
    played: list[TermsPlayed] = []
    for game in session.scalars(select(Game).join(RatingChange, RatingChange.game_id == Game.id)
                                .where(RatingChange.member_id == member_id,
                                       Game.kind == "go").order_by(RatingChange.id)):
        black = game.side0_id == member_id
        opponent = game.side1_rating if black else game.side0_rating
        if opponent is None:
            continue
        start = start_of(rules_for("go"), game.position)
        stones = int(getattr(start, "handicap", 0)) or 1
        played.append(TermsPlayed(opponent, stones, float(getattr(start, "komi", 5.5)), black))
    row.told_td = 1
    state = state_of(row, "go")
    rate = win_rate(state.wins, state.losses, state.draws)
    return {"player": member.name, "email": member.email, "points": state.rating,
            "rank_en": rank_name(go_rank_of(row), "en"),
            "rank_ja": rank_name(go_rank_of(row), "ja"),
            "counted": state.games, "wins": state.wins, "losses": state.losses,
            "draws": state.draws, "win_rate": f"{rate:.3f}" if rate is not None else "-",
            "implied": implied_points(played, state.wins, state.losses)}


def ratings_at(session: Session, member_ids: Iterable[int], kind: str, moment: datetime
               ) -> dict[int, int]:
    """The ratings in ``kind`` as they stood at ``moment`` (seed 004 section 5 (4): a
    finished salon league reads the points as they were when it ended): the rating after
    each member's last change at or before it, else the rating before their first change
    after it, else the rating now. No key: unrated then and now."""
    ids = list(member_ids)
    found = current_ratings(session, ids, kind)
    for member_id in ids:
        changes = list(session.scalars(
            select(RatingChange).join(Game, Game.id == RatingChange.game_id)
            .where(RatingChange.member_id == member_id, Game.kind == kind)
            .order_by(RatingChange.at, RatingChange.id)))
        before = [c for c in changes if c.at <= moment]
        after = [c for c in changes if c.at > moment]
        if before:
            found[member_id] = before[-1].after
        elif after:
            found[member_id] = after[0].before
    return found
