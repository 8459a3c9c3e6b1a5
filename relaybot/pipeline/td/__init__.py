"""The TD's commands, by mail from the TD address or by the CLI (J9, J12-J14, J20, D2).

Each command is a small class registered under its English and Japanese names, the
way Mailman keeps its email commands: ``parse`` a line into a command, ``run`` it in
the caller's transaction. A command's result is a value (:class:`Done`) so the mail
path and the CLI report it the same way. Adding a command is one class in the module of
its family:

- ``base``: what every command is built on (:class:`Command`, :class:`Context`,
  :class:`Done`, the registry :data:`COMMANDS` and its decorator :func:`command`);
- ``results``: ``forfeit``, ``adjudicate``, ``tutorial-end`` and ``result``;
- ``leave``: ``approve leave`` and ``refuse leave``;
- ``withdrawals``: ``withdraw`` and ``rest``;
- ``go_salon``: ``free`` and ``points``;
- ``questions``: ``answer``;
- ``dispatch``: command lines found in a text and run, and a TD's mail confirmed
  (it loads the families, in the order ``td --help`` lists them).

This package's face is the registry and the running of commands, below; what one family
alone offers (``results.read_result``, ``leave.leave_reason``) is imported from its module.
"""

from relaybot.pipeline.td.base import COMMANDS, Command, Context, Done, command
from relaybot.pipeline.td.dispatch import (
    NAMES_TEXT,
    CommandLine,
    command_at,
    command_game,
    find_commands,
    run_commands,
    td_mail,
)

__all__ = [
    "COMMANDS",
    "NAMES_TEXT",
    "Command",
    "CommandLine",
    "Context",
    "Done",
    "command",
    "command_at",
    "command_game",
    "find_commands",
    "run_commands",
    "td_mail",
]
