"""Turns at the embedding model: a query's encoding goes before the background backfill's.

One model encodes one batch at a time. With a plain lock, a search issued while the daemon
backfills a never-embedded index waited behind the backfill's batches (about 25 s on a
2-core machine): the backfill let go of the lock and took it straight back before the
waiting search thread was scheduled. Here a waiting query blocks every new background
turn, so it waits at most for the one background batch already running."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator


class Turns:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = False
        self._urgent_waiting = 0
        self.background_turns = 0  # background batches that got the model
        self.urgent_turns = 0
        self.most_overtaken = 0  # most background turns that started while a query waited (0 by design)

    @contextmanager
    def hold(self, urgent: bool) -> Iterator[None]:
        """The model, for one batch; `urgent` (a query) goes before any background batch waiting."""
        with self._cond:
            if urgent:
                self._urgent_waiting += 1
                seen = self.background_turns
                try:
                    while self._busy:
                        self._cond.wait()
                finally:
                    self._urgent_waiting -= 1
                # the batch running when we arrived does not count: it had the model already
                self.most_overtaken = max(self.most_overtaken, self.background_turns - seen)
                self.urgent_turns += 1
            else:
                while self._busy or self._urgent_waiting:
                    self._cond.wait()
                self.background_turns += 1
            self._busy = True
        try:
            yield
        finally:
            with self._cond:
                self._busy = False
                self._cond.notify_all()
