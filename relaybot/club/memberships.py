"""Memberships in the club's books (issue 30, seed 000): a member's kind (regular,
family, junior), how long it is valid (:class:`Term`), the yearly fee paid (in yen or in
pawns), leaving the club, and what the digest and the TD are told of memberships that
run out or lapsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import NamedTuple

from sqlalchemy import select
from sqlalchemy.orm import Session

from relaybot.club.book_settings import rules_of
from relaybot.club.errors import AdminError
from relaybot.club.members import find_member
from relaybot.club.pawns import add_pawns, balance, pay_pawns
from relaybot.core.books_rules import (
    MEMBER_KINDS,
    ClubRules,
    expiry_notice,
    junior_deadline,
    junior_until,
    pawns_for_fee,
    renewed_until,
    year_begins_after,
    yen_to_pawns,
)
from relaybot.store.models import FeePayment, Member, Membership, PawnEntry


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
