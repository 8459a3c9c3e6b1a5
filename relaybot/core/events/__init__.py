"""Events (T1-T5): pairings for JCCA and ICCF events, standings and crosstables.

Pure: stdlib only, no I/O. See :mod:`.pairings`, :mod:`.standings` and
:mod:`.crosstables`.
"""

from relaybot.core.events.crosstables import crosstable_data, crosstable_text, standings_lines
from relaybot.core.events.pairings import (
    ICCF_SECTION_SIZES,
    JCCA_GROUP_SIZE,
    berger_rounds,
    iccf_section,
    jcca_group,
    ladder,
    match,
    round_robin,
    shogi_league,
)
from relaybot.core.events.salon import EXEMPT_AGE, exempt, secretaries
from relaybot.core.events.standings import (
    DEFAULT_TIEBREAKS,
    LAST_FINAL_50,
    LEAGUE_TIEBREAKS,
    SALON_TIEBREAKS,
    SOLE_FIRST,
    TIEBREAKS,
    TIED_FIRST_70,
    GameResult,
    StandingRow,
    final_entries,
    final_entry,
    standings,
)

__all__ = [
    "DEFAULT_TIEBREAKS",
    "EXEMPT_AGE",
    "ICCF_SECTION_SIZES",
    "JCCA_GROUP_SIZE",
    "LAST_FINAL_50",
    "LEAGUE_TIEBREAKS",
    "SALON_TIEBREAKS",
    "SOLE_FIRST",
    "TIEBREAKS",
    "TIED_FIRST_70",
    "GameResult",
    "StandingRow",
    "berger_rounds",
    "crosstable_data",
    "crosstable_text",
    "exempt",
    "final_entries",
    "final_entry",
    "iccf_section",
    "jcca_group",
    "ladder",
    "match",
    "round_robin",
    "secretaries",
    "shogi_league",
    "standings",
    "standings_lines",
]
