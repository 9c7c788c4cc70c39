"""Where the exactly-once record is kept: local folders, resolved once.

Prefect's ``LocalFileSystem`` resolves its folder and the file's path with ``realpath``
on every access (pure Python in 3.11, an ``lstat`` per path component): six times per
publish task, four of them in the result storage, each ``lstat`` a release and
re-acquisition of the interpreter lock among sixteen threads. ``StateFolder`` resolves
its folder once and joins names to it; it holds both the cache policy's keys and the
results (``tasks.publishing.exactly_once``). (The profiles that once showed this as a
quarter of the flow's work counted threads waiting for the lock as busy; measured on the
lock's holder it is a few per cent, see ``benchmarks/README.md``.)

The block is never saved on the Prefect server: a saved block would tie the record to
that server's database (a result names its storage block by id). Unsaved, a result's
record names its file by absolute path, as Prefect does for a plain path, so any
process on the machine reads it back with a plain ``LocalFileSystem``.
"""

from __future__ import annotations

import os
from pathlib import Path

from prefect.filesystems import LocalFileSystem


class StateFolder(LocalFileSystem):
    """A ``LocalFileSystem`` on a folder resolved once, for files only pressroom writes.

    A name still cannot leave the folder (``..`` is refused); a symlink inside it is not
    followed before that check, which is why this is for the pipeline's own state only.
    """

    _block_type_name = "Pressroom State Folder"

    @classmethod
    def at(cls, folder: Path) -> StateFolder:
        return cls(basepath=str(folder.expanduser().resolve()))

    def _resolve_path(self, path: str | None) -> Path:
        # On strings: four times a task, and Path's parents and joins cost more than
        # the check itself.
        base = self.basepath or "."
        if path is None:
            return Path(base)
        full = os.path.normpath(os.path.join(base, os.path.expanduser(path)))
        if full != base and not full.startswith(base.rstrip(os.sep) + os.sep):
            raise ValueError(f"{path!r} is outside the state folder {base}")
        return Path(full)
