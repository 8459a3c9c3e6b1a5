"""The TD's decision on a leave request waiting for approval (J12): ``approve leave``
and ``refuse leave``, and why a leave cannot be taken, in both languages.
"""

from __future__ import annotations

from sqlalchemy import select

from relaybot.core.leave import (
    EXTRA_WITH_APPROVAL,
    NOT_ALLOWED,
    ORDER,
    OVER_ALLOWANCE,
    OVERLAP,
    STARTED,
    YEARLY_ALLOWANCE,
    check_leave,
)
from relaybot.core.said import Said
from relaybot.pipeline.requests import announce_leave
from relaybot.pipeline.td.base import Command, Context, Done, command, japanese_name
from relaybot.store.models import Leave, Member

# J12: why a leave cannot be approved, as a Japanese mail says it (English: the code)
LEAVE_REASONS_JA = {
    NOT_ALLOWED: "この大会では休戦が認められていません",
    ORDER: "終了日が開始日より前です",
    STARTED: "休戦がすでに始まっています",
    OVERLAP: "ほかの休戦と期間が重なっています",
    OVER_ALLOWANCE: "年間の休戦日数の枠を超えています",
}


def leave_reason(code: str) -> Said:
    """Why a leave cannot be taken (``core.leave`` reason codes), in both languages."""
    return Said(code.replace("_", " "), LEAVE_REASONS_JA.get(code, code))


class _LeaveDecision(Command):
    """A TD's decision on a leave request waiting for approval (J12)."""

    changes = "member"

    def run(self, ctx: Context, args: list[str], rest: str) -> Done:
        if len(args) < 1 or not args[0].isdigit():
            return self.misused()
        leave = ctx.session.get(Leave, int(args[0]))
        if leave is None or leave.status != "pending":
            return self.refuse(Said(f"no leave request {args[0]} waiting for approval",
                                    f"承認待ちの休戦の申請 {args[0]} はありません"))
        if ctx.td is not None and ctx.td != ctx.cfg.bot.td.strip().lower():
            # a leave covers all the member's games (J12): the club's TD decides it
            club_td = ctx.cfg.bot.td
            return self.refuse(Said(f"leave requests are decided by the club's TD, {club_td}",
                                    f"休戦の申請はクラブの TD（{club_td}）が決めます"))
        member = ctx.session.get(Member, leave.member_id)
        assert member is not None
        if member.id == ctx.td_member_id:
            return self.refuse(ctx.own_member())
        return self.decide(ctx, leave, member)

    def decide(self, ctx: Context, leave: Leave, member: Member) -> Done:
        """Apply the decision (or refuse it) and say what was done."""
        raise NotImplementedError


@command
class ApproveLeave(_LeaveDecision):
    """J12: leave beyond the yearly 30 days, approved by the TD."""

    name = "approve leave"
    aliases = ("休戦承認",)
    usage = "approve leave <leave number>"
    usage_ja = "休戦承認 <休戦の番号>"

    def decide(self, ctx: Context, leave: Leave, member: Member) -> Done:
        # J12 (seed 000 rule 16): 30 days a year, and 「さらに通算30日以内」 with approval
        taken = [(lv.first, lv.last) for lv in ctx.session.scalars(select(Leave).where(
            Leave.member_id == member.id, Leave.status == "active", Leave.id != leave.id))]
        check = check_leave(taken, (leave.first, leave.last), leave.first,
                            approved_extra_days=EXTRA_WITH_APPROVAL)
        who = japanese_name(member.name)
        if not check.ok and check.reason_code != OVER_ALLOWANCE:
            reason = leave_reason(check.reason_code)
            return self.refuse(Said(
                f"leave {leave.id} of {member.name} cannot be approved: {reason.en}",
                f"{who}の休戦 {leave.id} は承認できません: {reason.ja}"))
        if not check.ok:
            limit = YEARLY_ALLOWANCE + EXTRA_WITH_APPROVAL
            left = max(0, check.left_this_year)
            return self.refuse(Said(
                f"leave {leave.id} of {member.name} ({leave.first} - {leave.last}) would pass "
                f"{limit} days in {check.year} (30 a year and at most 30 more with approval); "
                f"{member.name} has {left} left",
                f"{who}の休戦 {leave.id}（{leave.first} 〜 {leave.last}）を承認すると、"
                f"{check.year}年の休戦が{limit}日を超えます（年30日、承認があればさらに30日まで）。"
                f"{who}の残りは{left}日です"))
        leave.status = "active"
        leave.extra_days = (leave.last - leave.first).days + 1
        announce_leave(ctx.session, ctx.cfg, member, leave, ctx.now)
        return self.done(Said(
            f"leave {leave.id} of {member.name} approved ({leave.first} - {leave.last})",
            f"{who}の休戦 {leave.id}（{leave.first} 〜 {leave.last}）を承認しました"))


@command
class RefuseLeave(_LeaveDecision):
    """J12: leave beyond the yearly 30 days, refused by the TD."""

    name = "refuse leave"
    aliases = ("休戦却下",)
    usage = "refuse leave <leave number>"
    usage_ja = "休戦却下 <休戦の番号>"

    def decide(self, ctx: Context, leave: Leave, member: Member) -> Done:
        leave.status = "refused"
        return self.done(Said(f"leave {leave.id} of {member.name} refused",
                              f"{japanese_name(member.name)}の休戦 {leave.id} を却下しました"))
