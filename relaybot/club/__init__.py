"""The club's ledgers: what the club keeps in its database, read and written for the
pipeline and the shells.

Game files, the day books and deadlines, results and ratings, tournaments and seasons,
memberships, pawns, prizes and ladders, the views a person reads about a game, the year's
report. The rules themselves stay pure in :mod:`relaybot.core`; these modules join them
to the store. They may use mail and the store, never the pipeline or a shell.
"""
