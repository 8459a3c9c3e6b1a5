"""The club's books from the store (issue 30, seed 000): memberships and their fees, the
pawn deposit, entry fees, tutorial games, the ladder, the preliminary prize and the annual
most-games award. The figures and the arithmetic are :mod:`relaybot.core.books_rules`
(pure); this module keeps the ledgers.

Nothing here is paid out in cash, and no balance ever goes below zero: a payment larger
than the member's pawns is refused whole.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, NamedTuple

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from relaybot.club.errors import AdminError
from relaybot.club.members import find_member
from relaybot.club.results import result_form
from relaybot.core.books_rules import (
    MEMBER_KINDS,
    ClubRules,
    LadderError,
    award_period,
    challenge_allowed,
    entry_fee,
    expiry_notice,
    junior_deadline,
    junior_until,
    ladder_after,
    most_games,
    pawns_for_fee,
    prize_shares,
    renewed_until,
    top_scorers,
    year_begins_after,
    yen_to_pawns,
)
from relaybot.store.models import (
    ClubAward,
    ClubSetting,
    Event,
    EventFee,
    EventPlayer,
    FeePayment,
    Game,
    LadderChallenge,
    LadderRung,
    Member,
    Membership,
    PawnEntry,
    Tutorial,
)


def rules_of(session: Session) -> ClubRules:
    """The club's figures: seed 000's, with the club's own settings over them."""
    values = dict(session.execute(select(ClubSetting.name, ClubSetting.value)).all())
    try:
        return ClubRules().with_values(values)
    except ValueError:
        return ClubRules()  # a setting from a newer release: the seed's figures


def set_settings(session: Session, values: dict[str, str]) -> ClubRules:
    """Change some of the club's figures (checked first, all or nothing)."""
    try:
        rules = rules_of(session).with_values(values)
    except ValueError as exc:
        raise AdminError(str(exc)) from None
    for name, text in values.items():
        row = session.get(ClubSetting, name)
        if row is None:
            session.add(ClubSetting(name=name, value=text.strip()))
        else:
            row.value = text.strip()
    return rules


# -- memberships ---------------------------------------------------------------------


def membership_of(session: Session, member: Member) -> Membership | None:
    """The member's row in the books; None for a member outside them."""
    return session.scalar(select(Membership).where(Membership.member_id == member.id))


def set_membership(session: Session, member: Member, *, kind: str | None,
                   family_of: str | None = None,
                   paid_until: date | None = None) -> Membership | None:
    """Put the member in the books or change their membership; None when nothing was
    asked and they are outside the books (a year of birth alone, as the go salon asks
    for, puts nobody in them). A family member lives with a regular member
    (家族会員は本会員と同居の家族に限ります); a junior needs a year of birth, the
    member's one (``Member.born``, ``member add/set --born``)."""
    ms = membership_of(session, member)
    if ms is None and kind is None and family_of is None and paid_until is None:
        return None
    if ms is None:
        ms = Membership(member_id=member.id, kind=kind or "regular")
        session.add(ms)
    if kind is not None:
        if kind not in MEMBER_KINDS:
            raise AdminError(f"--kind must be one of {', '.join(MEMBER_KINDS)}, not {kind!r}")
        if ms.kind == "junior" and kind != "junior" and paid_until is None \
                and ms.paid_until is not None:
            # a junior becoming regular keeps what was valid as a junior, not the years
            # paid beyond the last junior year (which never were)
            ms.paid_until = term_of(session, ms).until
        ms.kind = kind
    if family_of is not None:
        head = find_member(session, family_of)
        head_ms = membership_of(session, head)
        if head.id == member.id or head_ms is None or head_ms.kind != "regular":
            raise AdminError(f"--family-of: {head.email} is not a regular member "
                             "(a family member lives with a regular member)")
        ms.family_of_id = head.id
    if paid_until is not None:
        ms.paid_until = paid_until
    if ms.kind == "family" and ms.family_of_id is None:
        raise AdminError("a family member needs --family-of ADDR (the regular member "
                         "they live with)")
    if ms.kind != "family":
        ms.family_of_id = None
    if ms.kind == "junior" and member.born is None:
        raise AdminError("a junior member needs --born YYYY (juniors until the end of the "
                         "fiscal year they are 18)")
    session.flush()
    return ms


@dataclass(frozen=True)
class Term:
    """How long a membership is valid: ``until`` its last valid day (None: not paid
    yet) and ``why`` it ends then: ``paid`` (the fee paid so far), ``left`` (the member
    left the club), ``head`` (a family member's, the regular member's expiry),
    ``head_left`` (a family member whose regular member left), ``junior`` (the end of
    the last junior year: what was paid, or less when more was paid than that year)."""

    until: date | None
    why: str = "paid"
    head_id: int | None = None  # a family member's regular member


def term_of(session: Session, ms: Membership, rules: ClubRules | None = None,
            _heads: dict[int, Membership] | None = None) -> Term:
    """The membership's :class:`Term`. A family member's is the regular member's, and
    it ends when theirs does, by expiry or by leaving (家族会費: 有効期間は入会時期に
    関わらず本会員と同じ); a junior's ends with the last junior year
    (:func:`junior_until`)."""
    if ms.left_on is not None:
        return Term(ms.left_on, "left")
    if ms.kind == "family" and ms.family_of_id is not None:
        head = (_heads.get(ms.family_of_id) if _heads is not None
                else membership_of_id(session, ms.family_of_id))
        if head is None:
            return Term(None, "head", ms.family_of_id)
        if head.left_on is not None:
            ends = (head.left_on if head.paid_until is None
                    else min(head.left_on, head.paid_until))
            return Term(ends, "head_left", ms.family_of_id)
        return Term(head.paid_until, "head", ms.family_of_id)
    if ms.kind == "junior" and ms.paid_until is not None:
        born = session.scalar(select(Member.born).where(Member.id == ms.member_id))
        if born is not None:
            rules = rules or rules_of(session)
            ends = junior_until(ms.paid_until, born, rules)
            if ends >= junior_deadline(born, rules):  # no junior year may follow this one
                return Term(ends, "junior")
    return Term(ms.paid_until)


def membership_of_id(session: Session, member_id: int) -> Membership | None:
    """The books' row of the member with this id; None outside the books."""
    return session.scalar(select(Membership).where(Membership.member_id == member_id))


def valid_until(session: Session, ms: Membership) -> date | None:
    """The last valid day (:func:`term_of`): a family member's is the regular member's
    (有効期間は入会時期に関わらず本会員と同じ), a junior's no later than the end of the
    last junior year."""
    return term_of(session, ms).until


def renew(session: Session, member: Member, on: date, now: datetime, *,
          yen: int | None = None, pawns: int | None = None) -> tuple[Membership, str]:
    """One year's fee paid on ``on``: in yen (more than the fee goes to the deposit as
    pawns, as the seed's example: 5000円送金して、3000円を年会費に充てた残余の2000円を20
    pawnとしてデポジットする), from pawns, or, with neither, recorded as paid. Returns the
    membership and a line saying what happened."""
    ms = membership_of(session, member)
    if ms is None:
        raise AdminError(f"{member.email} has no membership kind yet: member set "
                         f"{member.email} --kind regular|family|junior")
    if ms.left_on is not None:
        raise AdminError(f"{member.email} left the club on {ms.left_on}")
    rules = rules_of(session)
    # 18歳の年度末までに入会・継続した1年を最終年度とします: no junior year may begin
    # after the deadline
    if ms.kind == "junior" and member.born is not None and year_begins_after(
            ms.paid_until, on, junior_deadline(member.born, rules)):
        raise AdminError(
            f"{member.email} is past the last junior year (to 31 March after turning "
            f"{rules.junior_age}, {junior_deadline(member.born, rules)}): renew as regular "
            f"(member set {member.email} --kind regular)")
    if ms.kind == "family":
        head_term = term_of(session, ms, rules)
        if head_term.why == "head_left":
            raise AdminError(
                f"{member.email} is a family member of a member who left the club on "
                f"{head_term.until}: renew as regular (member set {member.email} --kind "
                f"regular) or as family of another regular member (--family-of ADDR)")
    fee = rules.fee(ms.kind)
    if yen is not None and pawns is not None:
        raise AdminError("give --yen or --pawns, not both")
    paid_pawns = 0
    extra = ""
    if pawns is not None:
        paid_pawns = pawns_for_fee(fee, rules)
        if pawns != paid_pawns:
            raise AdminError(f"the {ms.kind} fee of {fee} yen is {paid_pawns} pawns, not {pawns}")
        pay_pawns(session, member, paid_pawns, f"membership fee ({ms.kind}, {fee} yen)", now,
                  kind="fee")
        paid_yen = 0
    else:
        paid_yen = fee if yen is None else yen
        if paid_yen < fee:
            raise AdminError(f"the {ms.kind} fee is {fee} yen, not {paid_yen}")
        rest = yen_to_pawns(paid_yen - fee, rules)
        if rest:
            add_pawns(session, member, rest, f"the rest of {paid_yen} yen after the "
                      f"{ms.kind} fee", now, yen=paid_yen - fee)
            extra = f"; {rest} pawns deposited"
    session.add(FeePayment(member_id=member.id, what="membership",
                           yen=min(paid_yen, fee), pawns=paid_pawns, at=now))
    if ms.kind != "family":
        ms.paid_until = renewed_until(ms.paid_until, on)
    ms.lapsed_told = None
    session.flush()
    until = valid_until(session, ms)
    return ms, (f"{member.email}: {ms.kind} membership paid "
                f"({f'{paid_pawns} pawns' if paid_pawns else f'{paid_yen} yen'}), "
                f"valid until {until or 'unknown'}{extra}")


def quit_club(session: Session, member: Member, on: date, now: datetime) -> int:
    """The member leaves: the membership ends and the pawns left are forfeited
    (退会時の残余 pawn は没収します). Returns the pawns forfeited."""
    ms = membership_of(session, member) or set_membership(session, member, kind="regular")
    assert ms is not None
    ms.left_on = on
    left = balance(session, member)
    if left:
        session.add(PawnEntry(member_id=member.id, at=now, pawns=-left, yen=0, kind="forfeit",
                              reason="forfeited on leaving the club"))
    session.flush()
    return left


# -- the pawn deposit ------------------------------------------------------------------


def balance(session: Session, member: Member) -> int:
    """The member's pawns now."""
    return int(session.scalar(select(func.coalesce(func.sum(PawnEntry.pawns), 0))
                              .where(PawnEntry.member_id == member.id)) or 0)


def add_pawns(session: Session, member: Member, pawns: int, reason: str, now: datetime, *,
              yen: int = 0, kind: str = "deposit", ref: str | None = None) -> PawnEntry:
    """Pawns in: a deposit, a sale between members, a prize."""
    if pawns <= 0:
        raise AdminError("--add takes a number of pawns above 0")
    if not reason.strip():
        raise AdminError("every movement of pawns needs its --reason")
    entry = PawnEntry(member_id=member.id, at=now, pawns=pawns, yen=yen, kind=kind,
                      reason=reason.strip(), ref=ref)
    session.add(entry)
    session.flush()
    return entry


def pay_pawns(session: Session, member: Member, pawns: int, reason: str, now: datetime, *,
              kind: str = "payment", ref: str | None = None) -> PawnEntry:
    """Pawns out: a fee, an entry fee, a purchase; refused when the balance would go
    below zero (never paid out in cash either)."""
    if pawns <= 0:
        raise AdminError("--pay takes a number of pawns above 0")
    if not reason.strip():
        raise AdminError("every movement of pawns needs its --reason")
    have = balance(session, member)
    if pawns > have:
        raise AdminError(f"{member.email} has {have} pawns, not {pawns}: "
                         "a deposit never goes below zero")
    entry = PawnEntry(member_id=member.id, at=now, pawns=-pawns, yen=0, kind=kind,
                      reason=reason.strip(), ref=ref)
    session.add(entry)
    session.flush()
    return entry


def ledger(session: Session, member: Member) -> list[PawnEntry]:
    """Every movement of the member's pawns, oldest first."""
    return list(session.scalars(select(PawnEntry).where(PawnEntry.member_id == member.id)
                                .order_by(PawnEntry.at, PawnEntry.id)))


# -- entry fees ------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryLine:
    """One player's entry fee in an event."""

    email: str
    yen: int
    paid: str | None  # "pawns", "yen", or None while unpaid


def set_event_fee(session: Session, event: Event, yen: int, now: datetime) -> list[EntryLine]:
    """Give the event an entry fee and take it from each player's pawns where they have
    enough; the rest stay unpaid until ``club paid`` records them."""
    if yen < 0:
        raise AdminError("--fee is a number of yen, 0 or more")
    session.add(EventFee(event_id=event.id, yen=yen))
    session.flush()
    rules = rules_of(session)
    for member in _players(session, event):
        due = entry_fee(yen, _kind(session, member), rules)
        need = pawns_for_fee(due, rules)
        if due and balance(session, member) >= need:
            pay_pawns(session, member, need, f"entry fee, {event.name} ({due} yen)", now,
                      kind="entry", ref=f"entry:{event.id}")
            session.add(FeePayment(member_id=member.id, what="entry", event_id=event.id,
                                   yen=0, pawns=need, at=now))
    session.flush()
    return entry_lines(session, event)


def record_entry_paid(session: Session, event: Event, member: Member, now: datetime) -> str:
    """Record a player's entry fee as paid in yen."""
    fee = session.get(EventFee, event.id)
    if fee is None:
        raise AdminError(f"the event {event.name!r} has no entry fee")
    if member.id not in {m.id for m in _players(session, event)}:
        raise AdminError(f"{member.email} does not play in {event.name!r}")
    if _entry_paid(session, event, member) is not None:
        raise AdminError(f"{member.email} has paid for {event.name!r} already")
    due = entry_fee(fee.yen, _kind(session, member), rules_of(session))
    session.add(FeePayment(member_id=member.id, what="entry", event_id=event.id, yen=due,
                           pawns=0, at=now))
    session.flush()
    return f"{member.email}: entry fee for {event.name} paid ({due} yen)"


def entry_lines(session: Session, event: Event) -> list[EntryLine]:
    """Each player's entry fee and whether it is paid; empty for an event without fee."""
    fee = session.get(EventFee, event.id)
    if fee is None:
        return []
    rules = rules_of(session)
    return [EntryLine(m.email, entry_fee(fee.yen, _kind(session, m), rules),
                      _entry_paid(session, event, m))
            for m in _players(session, event)]


def _entry_paid(session: Session, event: Event, member: Member) -> str | None:
    row = session.scalar(select(FeePayment).where(
        FeePayment.event_id == event.id, FeePayment.member_id == member.id,
        FeePayment.what == "entry"))
    if row is None:
        return None
    return "pawns" if row.pawns else "yen"


def _players(session: Session, event: Event) -> list[Member]:
    return list(session.scalars(select(Member).join(
        EventPlayer, EventPlayer.member_id == Member.id)
        .where(EventPlayer.event_id == event.id).order_by(EventPlayer.seat)))


def _kind(session: Session, member: Member) -> str | None:
    ms = membership_of(session, member)
    return ms.kind if ms is not None else None


# -- tutorial games --------------------------------------------------------------------


def check_tutorial(session: Session, kind: str, tutor: Member, student: Member) -> None:
    """A tutorial is chess or shogi, and each member has at most the club's number by
    email (郵便戦とEメール戦の各1回ずつ申込みできます)."""
    if kind not in ("chess", "shogi"):
        raise AdminError(f"a tutorial game is chess or shogi, not {kind}")
    if tutor.id == student.id:
        raise AdminError("the tutor and the student are two members")
    had = session.scalar(select(func.count()).select_from(Tutorial)
                         .where(Tutorial.student_id == student.id)) or 0
    allowed = rules_of(session).tutorials_by_email
    if had >= allowed:
        raise AdminError(f"{student.email} has had {had} tutorial game(s) by email "
                         f"(at most {allowed})")


def is_tutorial(session: Session, game_id: str) -> bool:
    """Whether the game is a tutorial (unrated, in no standings)."""
    return session.get(Tutorial, game_id) is not None


# -- the ladder ------------------------------------------------------------------------


def ladder_order(session: Session, kind: str) -> list[Member]:
    """The ladder of one game kind, top first."""
    return list(session.scalars(select(Member).join(
        LadderRung, LadderRung.member_id == Member.id)
        .where(LadderRung.kind == kind).order_by(LadderRung.position)))


def set_ladder(session: Session, kind: str, members: list[Member]) -> None:
    """Write the ladder of ``kind`` in this order, top first."""
    for rung in session.scalars(select(LadderRung).where(LadderRung.kind == kind)):
        session.delete(rung)
    session.flush()
    for position, member in enumerate(members, start=1):
        session.add(LadderRung(kind=kind, member_id=member.id, position=position))
    session.flush()


def register_challenge(session: Session, event: Event, game: Game) -> None:
    """A ladder event's game (``event new --kind ladder --players CHALLENGER,HIGHER``):
    the challenge names a higher player (挑戦する上位者を指名). A game kind with no
    ladder yet starts one with the defender on it."""
    challenger, defender = _players(session, event)[:2]
    order = ladder_order(session, game.kind)
    if not order:
        set_ladder(session, game.kind, [defender])
        order = [defender]
    try:
        challenge_allowed([m.email for m in order], challenger.email, defender.email)
    except LadderError as exc:
        raise AdminError(f"ladder ({game.kind}): {exc}") from None
    session.add(LadderChallenge(game_id=game.id, kind=game.kind, challenger_id=challenger.id,
                                defender_id=defender.id))
    session.flush()


def _settle_ladders(session: Session, now: datetime) -> list[str]:
    done = []
    rows = session.execute(select(LadderChallenge, Game).join(
        Game, Game.id == LadderChallenge.game_id).where(
        LadderChallenge.applied_at.is_(None), Game.status == "finished")
        .order_by(Game.end_date, Game.updated_at)).all()
    for ch, game in rows:
        order = ladder_order(session, ch.kind)
        by_email = {m.email: m for m in order}
        challenger = session.get(Member, ch.challenger_id)
        defender = session.get(Member, ch.defender_id)
        assert challenger is not None and defender is not None
        by_email[challenger.email] = challenger
        form = result_form(game)
        winner_id = (game.side0_id if form == "1-0" else game.side1_id if form == "0-1"
                     else None)
        winner = (challenger.email if winner_id == challenger.id
                  else defender.email if winner_id == defender.id else None)
        new = ladder_after([m.email for m in order], challenger.email, defender.email, winner)
        set_ladder(session, ch.kind, [by_email[e] for e in new])
        ch.applied_at = now
        done.append(f"ladder ({ch.kind}): {challenger.email} v {defender.email}, "
                    + ("challenger wins and moves up" if winner == challenger.email
                       else "the ladder stays"))
    return done


# -- prizes and the award --------------------------------------------------------------


def _settle_prizes(session: Session, now: datetime) -> list[str]:
    rules = rules_of(session)
    done = []
    given = set(session.scalars(select(ClubAward.ref).where(ClubAward.what == "prize")))
    events = [e for e in session.scalars(select(Event).where(
        Event.kind == "group", Event.final == 0, Event.start_date >= rules.prize_from))
        if e.name not in given]
    ready = _all_finished(session, [e.name for e in events])
    for event in events:
        if event.name not in ready:
            continue
        games = list(session.scalars(select(Game).where(Game.event == event.name)))
        if not games or any(g.status != "finished" for g in games):
            continue
        scores: dict[int, float] = {m.id: 0.0 for m in _players(session, event)}
        for g in games:
            form = result_form(g)
            if form is None:
                continue
            s0, _, s1 = form.partition("-")
            scores[g.side0_id] = scores.get(g.side0_id, 0.0) + _points(s0)
            scores[g.side1_id] = scores.get(g.side1_id, 0.0) + _points(s1)
        winners = top_scorers({str(k): v for k, v in scores.items()})
        share = prize_shares(len(winners), rules)
        for mid in winners:
            member = session.get(Member, int(mid))
            assert member is not None
            session.add(ClubAward(what="prize", ref=event.name, member_id=member.id,
                                  pawns=share, at=now))
            if share:
                add_pawns(session, member, share, f"tournament prize, {event.name}", now,
                          kind="prize", ref=f"prize:{event.id}")
            done.append(f"prize {event.name}: {member.email} {share} pawns")
    session.flush()
    return done


def _all_finished(session: Session, names: list[str]) -> set[str]:
    """The events among ``names`` that have games, every one of them finished.

    One query for many events (in chunks), not one per event: games are not indexed by
    event, and the digest settles the books before every run (10,000 members in 2,500
    sections: 2,500 scans of the games, most of the run's time, issue 29).
    """
    played: set[str] = set()
    open_: set[str] = set()
    for start in range(0, len(names), 500):
        for name, status in session.execute(
                select(Game.event, Game.status).where(Game.event.in_(names[start:start + 500]))
                .distinct()):
            if name is None:
                continue  # not asked for: the query names its events
            played.add(name)
            if status != "finished":
                open_.add(name)
    return played - open_


def _points(text: str) -> float:
    return {"1": 1.0, "1/2": 0.5}.get(text.strip(), 0.0)


def _counted(rules: ClubRules) -> tuple[Any, ...]:
    """The games the award counts: finished, started on or after the award's first day,
    tutorials not counted."""
    return (Game.status == "finished", Game.start_date >= rules.award_from,
            Game.id.not_in(select(Tutorial.game_id)))


def games_in_year(session: Session, year: int, rules: ClubRules | None = None,
                  ) -> tuple[Counter[int], tuple[date, date] | None]:
    """Games each member finished in award year ``year`` (April to March; tutorials not
    counted), and the year's days."""
    rules = rules or rules_of(session)
    period = award_period(year, rules)
    counts: Counter[int] = Counter()
    if period is None:
        return counts, None
    for side0, side1 in session.execute(select(Game.side0_id, Game.side1_id).where(
            Game.end_date >= period[0], Game.end_date <= period[1], *_counted(rules))):
        counts[side0] += 1
        counts[side1] += 1
    return counts, period


def _settle_awards(session: Session, now: datetime, today: date) -> list[str]:
    rules = rules_of(session)
    done = []
    given = set(session.scalars(select(ClubAward.ref).where(ClubAward.what == "award")))
    year = rules.award_from.year - 1
    # a year no counted game ended in has no award and stays unsettled: only the years
    # between the first and the last such game are read (one query for the rest; each
    # digest run settles the books, issue 29)
    first, last = session.execute(select(func.min(Game.end_date), func.max(Game.end_date))
                                  .where(*_counted(rules))).one()
    while True:
        period = award_period(year, rules)
        if period is not None and period[1] >= today:
            break
        if (period is not None and str(year) not in given and first is not None
                and last is not None and period[0] <= last and first <= period[1]):
            counts, _ = games_in_year(session, year, rules)
            winners, games = most_games({str(k): v for k, v in counts.items()})
            for mid in winners:
                session.add(ClubAward(what="award", ref=str(year), member_id=int(mid),
                                      games=games, at=now))
                done.append(f"most games {year}: member {mid}, {games} games")
        year += 1
    session.flush()
    return done


def settle(session: Session, now: datetime, today: date) -> list[str]:
    """Everything the books do by themselves, once each: the ladders after finished
    challenges, the prizes of finished preliminary groups, the award of each year ended.
    Returns a line for each."""
    return (_settle_ladders(session, now) + _settle_prizes(session, now)
            + _settle_awards(session, now, today))


# -- what the digest and the TD are told -----------------------------------------------


def terms_of(session: Session, ids: list[int]) -> dict[int, Term]:
    """The :class:`Term` of each member among ``ids`` who is in the books."""
    if not ids:
        return {}
    rules = rules_of(session)
    rows = list(session.scalars(select(Membership).where(Membership.member_id.in_(ids))))
    heads = {m.member_id: m for m in session.scalars(select(Membership).where(
        Membership.member_id.in_({r.family_of_id for r in rows if r.family_of_id})))}
    return {ms.member_id: term_of(session, ms, rules, heads) for ms in rows}


def state_of(term: Term, today: date, rules: ClubRules) -> str | None:
    """What the digest says of a membership's ``term`` today (``soon``, ``expired``,
    ``lapsed`` or None, :func:`expiry_notice`). A member who left, and a family member
    the day after their regular member left, are lapsed at once: no fee paid now keeps
    a family membership whose regular member has gone."""
    if term.why == "left":
        return "lapsed"
    if term.why == "head_left" and term.until is not None:
        return "lapsed" if today > term.until else "soon"
    return expiry_notice(term.until, today, rules)


class Notice(NamedTuple):
    """What the digest says of a membership: ``state`` (``soon`` | ``expired`` |
    ``lapsed``), its last valid day, and why it ends then (:class:`Term`)."""

    state: str
    until: date
    why: str


def membership_states(session: Session, ids: list[int], today: date) -> dict[int, Notice]:
    """For the members among ``ids`` in the books whose membership runs out soon, ran out
    this week or lapsed: the :class:`Notice`."""
    rules = rules_of(session)
    found = {}
    for mid, term in terms_of(session, ids).items():
        state = state_of(term, today, rules)
        if state is not None and term.until is not None:
            found[mid] = Notice(state, term.until, term.why)
    return found


@dataclass(frozen=True)
class Lapsed:
    """A member whose membership lapsed, for the TD's one notice: ``head``, for a
    family member, the regular member whose membership theirs followed, and whether
    that member ``head_left`` the club."""

    member: Member
    until: date
    head: Member | None = None
    head_left: bool = False


def lapsed_to_tell(session: Session, today: date) -> list[Lapsed]:
    """Lapsed members the TD has not been told of for this expiry; marks them told. A
    member who left is not among them (the TD recorded the leaving)."""
    ids = list(session.scalars(select(Membership.member_id).where(Membership.left_on.is_(None))))
    rules = rules_of(session)
    found = []
    for mid, term in terms_of(session, ids).items():
        if state_of(term, today, rules) != "lapsed" or term.until is None:
            continue
        ms = membership_of_id(session, mid)
        if ms is None or ms.lapsed_told == term.until:
            continue
        ms.lapsed_told = term.until
        member = session.get(Member, mid)
        assert member is not None
        head = session.get(Member, term.head_id) if term.head_id is not None else None
        found.append(Lapsed(member, term.until, head, term.why == "head_left"))
    return found


def ladders_of(session: Session, ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """For each member among ``ids`` on a ladder: every ladder they are on, names top
    first (the digest shows it; 公式サイトやニュースレターに掲載される梯子段)."""
    if not ids:
        return {}
    kinds = sorted(set(session.scalars(select(LadderRung.kind).where(
        LadderRung.member_id.in_(ids)))))
    found: dict[int, list[dict[str, Any]]] = {}
    for kind in kinds:
        order = ladder_order(session, kind)
        shown = {"kind": kind, "names": [m.name for m in order]}
        for m in order:
            if m.id in ids:
                found.setdefault(m.id, []).append(shown)
    return found


def club_news(session: Session, since: datetime) -> list[dict[str, Any]]:
    """Prizes and awards given since ``since``, for the digest."""
    rows = session.execute(select(ClubAward, Member.name).join(
        Member, Member.id == ClubAward.member_id).where(ClubAward.at >= since)
        .order_by(ClubAward.at, ClubAward.id)).all()
    return [{"what": a.what, "ref": a.ref, "name": name, "pawns": a.pawns, "games": a.games,
             "at": a.at} for a, name in rows]
