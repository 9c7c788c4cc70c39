"""What a record id's order costs an insert as the history grows, on SQLite.

A publish writes a post row and an event row, each keyed by a record id
(``db.base.new_id``). This inserts them as a publish does (the real schema, the
service's pragmas, 25 publishes per commit as the group writer commits them under load,
a checkpoint every 1,000) into a fresh copy of a seeded database, block after block of
5,000, once with ids of random hex (pressroom's ids before the sixteenth round) and
once with ``new_id``'s (in the order they were made), and prints the CPU each block
took per publish. Alternated, ``--repeat`` times::

    .venv/bin/python -m benchmarks.id_order
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pressroom.service import randomness
from pressroom.service.db.base import new_id

BLOCK = 5_000
PER_COMMIT = 25
CHECKPOINT_EVERY = 1_000
NOW = "2026-11-29 03:00:00.000000"

IdMaker = Callable[[str], str]


def random_id(prefix: str) -> str:
    """The ids before the sixteenth round: 24 hex digits of randomness."""
    return f"{prefix}_{randomness.token_hex(12)}"


MAKERS: dict[str, IdMaker] = {"random": random_id, "ordered": new_id}


def _seeded(folder: Path) -> Path:
    from benchmarks.common import seed_account
    from benchmarks.throughput import CONNECTIONS_SEEDED

    seed_account(folder, None, CONNECTIONS_SEEDED)
    return folder / "pressroom.db"


def blocks(seed: Path, make_id: IdMaker, count: int, block: int = BLOCK) -> list[float]:
    """CPU microseconds per publish of each of ``count`` blocks of ``block`` publishes,
    on a fresh copy of ``seed``."""
    with tempfile.TemporaryDirectory(prefix="id-order-") as scratch:
        path = Path(scratch) / "pressroom.db"
        shutil.copy(seed, path)
        db = sqlite3.connect(path, isolation_level=None)
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "synchronous=NORMAL"):
            db.execute(f"PRAGMA {pragma}")
        db.execute("PRAGMA wal_autocheckpoint=0")  # as the group writer: its own checkpoints
        account = db.execute("SELECT id FROM accounts").fetchone()[0]
        connection = db.execute(
            "SELECT id FROM connections WHERE platform = 'microblog'"
        ).fetchone()[0]
        request = json.dumps({"connectionId": connection, "text": "A post of the benchmark"})
        found = []
        for _ in range(count):
            started = time.process_time()
            for made in range(0, block, PER_COMMIT):
                db.execute("BEGIN IMMEDIATE")
                for _ in range(PER_COMMIT):
                    db.execute(
                        "INSERT INTO posts (id, account_id, connection_id, platform, request,"
                        " status, idempotency_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            make_id("post"),
                            account,
                            connection,
                            "microblog",
                            request,
                            "publishing",
                            randomness.token_hex(16),
                            NOW,
                        ),
                    )
                    db.execute(
                        "INSERT INTO webhook_events (id, account_id, type, resource, data,"
                        " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                        (make_id("evt"), account, "post.published", "post", request, NOW),
                    )
                db.execute("COMMIT")
                if (made + PER_COMMIT) % CHECKPOINT_EVERY == 0:
                    db.execute("PRAGMA wal_checkpoint(RESTART)").fetchall()
            found.append((time.process_time() - started) / block * 1e6)
        db.close()
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=12, help="blocks measured")
    parser.add_argument("--block", type=int, default=BLOCK, help="publishes per block")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="id-order-seed-") as folder:
        seed = _seeded(Path(folder))
        for _ in range(args.repeat):
            for name, maker in MAKERS.items():
                figures = blocks(seed, maker, args.blocks, args.block)
                shown = " ".join(f"{value:.0f}" for value in figures)
                print(f"{name:8} us per publish, block by block of {args.block:,}: {shown}")


if __name__ == "__main__":
    main()
