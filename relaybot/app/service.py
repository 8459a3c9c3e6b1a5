"""The service's entry points, for the shells (poller, CLI, demo) and the tests.

The work is done by the pipeline (:mod:`relaybot.pipeline`): receive -> identify ->
commands -> decide and persist -> effects. This module only names its entry points.
"""

from relaybot.pipeline.lifecycle import end_game, load_game, refresh_due, start_mails
from relaybot.pipeline.receive import Arrival, Prefetch, prefetch, process_in, process_mail

__all__ = ["Arrival", "Prefetch", "end_game", "load_game", "prefetch", "process_in",
           "process_mail", "refresh_due", "start_mails"]
