"""The path one inbound mail walks, downhill, once through each stage.

receive (:mod:`.receive`: ledger, one transaction) -> identify (:mod:`.identify`:
who sent it, which game) -> read commands (:mod:`.commands`) -> decide (the game's
referee, :mod:`.play`) -> persist -> effects (:mod:`.effects`: the one place that
renders and queues mail). TD commands (:mod:`.td`) and the sweep use the same game
lifecycle (:mod:`.lifecycle`) and the same effects stage.
"""
