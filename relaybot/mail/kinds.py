"""Every kind of mail the bot sends (the outbox row's ``kind``), each with its name in
Japanese and in English.

One list, so that:

- a mail naming another mail (the TD's summary of held-back mail, a delivery notice)
  names its kind in the reader's language, never by its code (issue 15);
- :class:`relaybot.pipeline.effects.Mail` refuses a kind that is not listed here, so the
  list is complete by construction;
- the mail samples (``docs/mails/``, ``tests/integration/test_mail_samples.py``) are
  checked against it: a kind added here without a sample fails the test.

Error replies are one family, ``error_<reason>``: each reason a player's mail can be
refused for (:data:`ERRORS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

ERROR_PREFIX = "error_"

KINDS: Mapping[str, tuple[str, str]] = MappingProxyType({  # kind -> (ja, en)
    # to a player, about a game
    "start": ("対局開始のお知らせ", "game start"),
    "move": ("手の転送", "move relayed"),
    "draw_offer": ("ドローの申し込み", "draw offer"),
    "declared": ("宣言・結果の申告", "declaration or stated result"),
    "ack": ("受信の確認", "acknowledgement"),
    "status": ("対局の状況", "game status"),
    "help": ("使い方", "help"),
    "game_end": ("終局のお知らせ", "game over"),
    "result_corrected": ("結果の訂正", "result corrected"),
    "long_think": ("長考の通知", "long think notice"),
    "long_think_ack": ("長考の通知の受付", "long think notice received"),
    "reminder": ("督促", "reminder"),
    "with_td": ("対局期間の終了（TD の裁定へ）", "24 months: to the TD for adjudication"),
    "answer": ("TD の回答", "the TD's answer"),
    "leave_notice": ("休戦のお知らせ", "leave notice"),
    "salon_end": ("囲碁サロンのリーグ戦の終了", "go salon league ended"),
    "leave_reply": ("休戦の届けへの返信", "answer to a leave"),
    "question_ack": ("質問の受付", "question received"),
    "sections": ("複数の対局のメールへの返信", "answer to a mail for several games"),
    # to a member
    "digest": ("週刊ダイジェスト", "weekly digest"),
    "digest_off": ("ダイジェスト停止の確認", "digest turned off"),
    "digest_on": ("ダイジェスト再開の確認", "digest turned on again"),
    "hold_request": ("メールの確認のお願い", "confirmation request"),
    "hold_forged": ("なりすましメールの通知", "mail forged in the member's name"),
    "hold_again": ("確認か取消かのお尋ね", "confirmation request asked again"),
    "hold_gone": ("確認するメールがないことの通知", "nothing left to confirm"),
    "hold_cancelled": ("保留メールの取り消し", "held mail cancelled"),
    "season_final": ("順位戦の最終成績", "league final standings"),
    # to a tournament director (and a league class's secretary)
    "td_confirm": ("TD コマンドの処理結果", "TD command results"),
    "td_leave": ("休戦の届け・承認の依頼", "leave notice or approval request"),
    "td_question": ("対局者からの質問", "question from a player"),
    "td_overrun": ("持ち時間超過の報告", "overrun report"),
    "td_result": ("対局結果の報告", "result report"),
    "td_declared": ("申告された結果の食い違い", "disputed result"),
    "td_silence": ("無返信の報告", "silence report"),
    "td_duration": ("対局期間超過の報告", "24-month report"),
    "td_go_points": ("囲碁の持点: 対戦数10局", "go points: 10 counted games"),
    "td_delivery": ("配送できなかったメール", "undeliverable mail"),
    "td_bounces": ("配送エラーが続く会員", "repeated bounces"),
    "td_summary": ("上限を超えたメールの一覧", "held mail summary"),
    "season_progress": ("順位戦の途中経過", "league progress report"),
    "td_lapsed": ("会費切れの会員", "membership lapsed"),
    # to the operator
    "quarantine": ("隔離したメール", "quarantined mail"),
})
"""Every kind but the error replies."""

ERRORS: Mapping[str, tuple[str, str]] = MappingProxyType({  # reason -> (ja, en)
    "sync_error": ("棋譜の不一致", "record differs from the game"),
    "bad_move": ("手の誤り", "wrong move"),
    "contradiction": ("予告された手との矛盾", "binding answer not played"),
    "not_your_turn": ("手番違い", "not your turn"),
    "too_many_moves": ("新しい手が多すぎる", "more than one new move"),
    "no_move": ("新しい手なし", "no move"),
    "game_over": ("終局後のメール", "game already over"),
    "no_game": ("対局が不明", "which game"),
    "not_player": ("対局者ではない", "not a player of the game"),
    "too_many_conditionals": ("条件付き提案が多すぎる", "too many conditional proposals"),
    "too_long": ("棋譜が長すぎる", "record too long"),
    "no_draw_offers": ("引き分けの提案の拒否", "draw offer refused"),
    "too_many_sections": ("対局が多すぎる", "too many games in one mail"),
    "not_td": ("TD コマンドの拒否", "TD command from a player"),
    "tutorial_end": ("チュートリアルの終了の拒否", "tutorial end refused"),
    "with_td": ("TD の裁定待ちの対局への手", "move after the game went to the TD"),
})
"""Why a player's mail was refused: the error reply's kind is ``error_<reason>``."""


def is_kind(kind: str) -> bool:
    """Whether the bot may send a mail of this kind."""
    if kind.startswith(ERROR_PREFIX):
        return kind[len(ERROR_PREFIX):] in ERRORS
    return kind in KINDS


def every_kind() -> tuple[str, ...]:
    """Every kind, error replies included, in the order above."""
    return (*KINDS, *(ERROR_PREFIX + reason for reason in ERRORS))


def kind_name(kind: str, lang: str) -> str:
    """A mail's kind as a reader of ``lang`` names it: ``td_silence`` is 無返信の報告 in
    Japanese, "silence report" in English."""
    index = 0 if lang == "ja" else 1
    if kind in KINDS:
        return KINDS[kind][index]
    reason = kind[len(ERROR_PREFIX):] if kind.startswith(ERROR_PREFIX) else None
    if reason is not None and reason in ERRORS:
        name = ERRORS[reason][index]
        return f"エラーの返信（{name}）" if lang == "ja" else f"error reply ({name})"
    # a kind from elsewhere (an older row): never the code in a Japanese mail
    return "その他のメール" if lang == "ja" else kind.replace("_", " ")
