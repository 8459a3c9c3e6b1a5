"""The shells: the processes a club runs and what they do on their own.

The service loop (runner), the IMAP poller, the outbox sender, the scheduler's sweep
and upkeep, the weekly digest, the season's scheduled work, the demo and its in-process
mail servers, the multi-club host, logs and progress bars. They sit at the top of the
layers: they call the pipeline, the club's ledgers, mail and the store; nothing below
imports them.
"""
