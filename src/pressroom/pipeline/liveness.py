"""Who holds a run, and whether it is gone: so no run stays RUNNING after its process died.

pressroom turns Prefect's flow heartbeats off (they cost a second a run), so it keeps its
own liveness: each run records its host and process id and a lease it renews while it
runs (as labels on its flow run, see ``tasks/liveness.py``). An earlier run still marked
RUNNING is abandoned only when its process is gone on this host, or, on another host,
when its lease ran out: a live run beside this one is never touched.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pressroom.pipeline.outcomes import ALREADY_PUBLISHED, Kind, ResultRow, Status

HOST = "pressroom.host"
PID = "pressroom.pid"
LEASE_UNTIL = "pressroom.lease-until"


@dataclass(frozen=True)
class Holder:
    host: str
    pid: int
    lease_until: datetime

    @classmethod
    def here(cls, lease_seconds: float, now: datetime | None = None) -> Holder:
        start = now or datetime.now(UTC)
        return cls(socket.gethostname(), os.getpid(), start + timedelta(seconds=lease_seconds))

    def labels(self) -> dict[str, str]:
        return {
            HOST: self.host,
            PID: str(self.pid),
            LEASE_UNTIL: self.lease_until.isoformat(timespec="seconds"),
        }

    @classmethod
    def from_labels(cls, labels: dict[str, object]) -> Holder | None:
        """The holder a run recorded, or None (a run from before, or not pressroom's)."""
        try:
            return cls(
                str(labels[HOST]),
                int(str(labels[PID])),
                datetime.fromisoformat(str(labels[LEASE_UNTIL])),
            )
        except (KeyError, ValueError):
            return None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def why_abandoned(
    holder: Holder | None,
    *,
    host: str | None = None,
    now: datetime | None = None,
    alive: Callable[[int], bool] = pid_alive,
) -> str | None:
    """Why a RUNNING run's process is gone, or None when it may be alive (or is unknown)."""
    if holder is None:
        return None
    here = host or socket.gethostname()
    if holder.host == here:
        if not alive(holder.pid):
            return f"its process ({holder.pid} on {holder.host}) is gone"
        return None
    moment = now or datetime.now(UTC)
    if holder.lease_until < moment:
        return (
            f"its lease ran out at {holder.lease_until.isoformat(timespec='seconds')} "
            f"(process {holder.pid} on {holder.host})"
        )
    return None


IN_FLIGHT = (
    "in flight when its run's process died: it may have gone out; the next run of this "
    "edition settles it with the same key"
)


def row_from_task_run(
    name: str, state_type: str, state_name: str, message: str | None
) -> ResultRow | None:
    """A result row from what Prefect recorded of a publish task run of a dead run
    (``platform · connection · post`` or ``thumbnail · connection · post``)."""
    parts = name.split(" · ")
    if len(parts) != 3 or parts[0] in ("upload", "ready"):
        return None
    platform, connection, post = parts
    kind = Kind.THUMBNAIL if platform == "thumbnail" else Kind.POST
    if kind is Kind.THUMBNAIL:
        post = f"{post} (thumbnail)"
    row = ResultRow(post, platform, connection, Status.UNCONFIRMED, error=IN_FLIGHT, kind=kind)
    if state_type == "COMPLETED" and state_name == "Cached":
        return row.with_status(Status.SKIPPED, error=None, reason=ALREADY_PUBLISHED)
    if state_type == "COMPLETED":
        return row.with_status(Status.PUBLISHED, error=None)
    if state_type in ("FAILED", "CRASHED"):
        return row.with_status(Status.FAILED, error=message or state_name)
    return row
