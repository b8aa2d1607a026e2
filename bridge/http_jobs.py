"""Long operations as daemon jobs: `POST /api/jobs {"kind"}` starts GC, promote-all, sync or
consolidate (`{"kind": "consolidate", "ids": [...]}`, applied) in a thread and answers at once with the job; progress
and the result arrive as `job` events on `/api/events` (and `GET /api/jobs` lists them), so no HTTP request waits for
minutes and a slow vault is never mistaken for a dead daemon. A job is background work:
it never moves the note open in the editor (GC and promote-all skip it, a consolidation
leaves it out; each result lists it under `held`).

Event data: {"id", "kind", "state": "running"|"done"|"failed", "done", "total" (null when
unknown), "result" (on done), "error": {"code", "message"} (on failed)}.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from vault_sync.errors import InvalidInput, MnemovaultError

from . import schemas as S
from .answers import plain
from .errors import error_body

if TYPE_CHECKING:
    from vault_sync.service import MemoryService

KINDS = ("gc", "promote", "sync", "consolidate")
KEEP_FINISHED = 20
PROGRESS_EVERY = 0.2  # seconds between progress events: a sweep may move thousands of notes


class Jobs:
    def __init__(self, svc: MemoryService, clock: Callable[[], float] = time.monotonic):
        self.svc = svc
        self.clock = clock
        self.jobs: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self.ids = itertools.count(1)

    def list(self) -> dict[str, Any]:
        with self.lock:
            return {"jobs": [dict(j) for j in self.jobs.values()]}

    def start(self, kind: str, ids: Sequence[str] | None = None) -> dict[str, Any]:
        if kind not in KINDS:
            raise InvalidInput(f"unknown job {kind!r}: one of {', '.join(KINDS)}")
        if (kind == "consolidate") != bool(ids):
            raise InvalidInput("ids are needed for a consolidate job, and only for it")
        with self.lock:
            if any(j["kind"] == kind and j["state"] == "running" for j in self.jobs.values()):
                raise InvalidInput(f"a {kind} job is already running")
            job: dict[str, Any] = {
                "id": str(next(self.ids)),
                "kind": kind,
                "state": "running",
                "done": 0,
                "total": None,
                "result": None,
                "error": None,
            }
            args: dict[str, Any] = {"ids": [*(ids or ())]}
            self.jobs[job["id"]] = job
            for old in [k for k, j in self.jobs.items() if j["state"] != "running"][:-KEEP_FINISHED]:
                del self.jobs[old]  # a long-lived daemon keeps only the recent ones
            started = dict(job)  # as it starts: a fast job may be done before this answer is sent
        threading.Thread(target=self._run, args=(job, args), name=f"job-{kind}", daemon=True).start()
        return started

    def _emit(self, job: dict[str, Any]) -> None:
        self.svc.emit("job", dict(job))

    def _run(self, job: dict[str, Any], args: dict[str, Any]) -> None:
        last = [0.0]

        def progress(done: int, total: int | None) -> None:
            with self.lock:
                job["done"], job["total"] = done, total
            now = self.clock()
            if now - last[0] >= PROGRESS_EVERY or (total is not None and done >= total):
                last[0] = now
                self._emit(job)

        self._emit(job)
        try:
            result = plain(self._work(job["kind"], progress, args))
            with self.lock:
                job.update(state="done", result=result)
        except MnemovaultError as exc:
            with self.lock:
                job.update(state="failed", error=error_body(exc)["error"])
        except Exception as exc:  # noqa: BLE001 - a job reports its failure, the daemon lives on
            with self.lock:
                job.update(state="failed", error={"code": "error", "message": str(exc)})
        self._emit(job)

    def _work(self, kind: str, progress: Callable[[int, int | None], None], args: dict[str, Any]) -> Any:
        svc = self.svc
        if kind == "sync":
            return svc.sync(progress=progress, check=True)
        # GC, promote-all, consolidate: the preview gives the total; each move event counts one.
        if kind == "consolidate":
            total = len(svc.consolidate(args["ids"], apply=False, leave_held=True)["plan"]["sources"])
        else:
            preview = svc.gc(dry_run=True) if kind == "gc" else svc.promote_all(True)
            total = len(preview["candidates"])  # a dry run lists candidates (promote: `promoted` stays empty)
        moved = "promoted" if kind == "promote" else "archived"
        count = [0]

        def on_event(event_kind: str, data: dict[str, Any]) -> None:
            if event_kind == moved:
                count[0] += 1
                progress(count[0], total)

        progress(0, total)
        unsubscribe = svc.subscribe(on_event)
        try:
            if kind == "consolidate":
                return svc.consolidate(args["ids"], apply=True, leave_held=True)
            return svc.gc(dry_run=False) if kind == "gc" else svc.promote_all(False)
        finally:
            unsubscribe()


class Endpoint(Protocol):
    """http_app's maker of a route's handler: the call the parsed arguments make, their model, the method."""

    def __call__(
        self, make: Callable[[Any], Callable[[], Any]], model: type[S.Args], method: str = "POST"
    ) -> Callable[[Request], Awaitable[Response]]: ...


def job_routes(svc: MemoryService, endpoint: Endpoint) -> list[Route]:
    jobs = Jobs(svc)
    return [
        Route("/api/jobs", endpoint(lambda a: lambda: jobs.list(), S.NoArgs, "GET"), methods=["GET"]),
        Route("/api/jobs", endpoint(lambda a: lambda: jobs.start(a.kind, a.ids), S.JobBody), methods=["POST"]),
    ]
