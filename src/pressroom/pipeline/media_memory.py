"""What was uploaded where: content hash → fileIds, for one service address.

Scheduled runs of a campaign upload the same media every time; remembering them saves
the monthly upload quota. A remembered id is only a hint: the step checks it with a
status call before reuse (another account's id is a 404 there, a deleted file too), and
forgets it when the check fails. A content keeps a few ids, newest first, so accounts
sharing a machine each find their own without pushing out the others'. The memory is one small JSON file, written atomically
under a file lock: two runs on one machine (two campaigns, or a manual run beside a
scheduled one) each read, change and write it whole, and neither loses the other's uploads.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path

from filelock import FileLock

_LOCK = threading.Lock()
IDS_PER_CONTENT = 8


class MediaMemory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._file_lock = FileLock(str(path) + ".lock", timeout=60)

    def _read(self) -> dict[str, list[str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}
        if not isinstance(data, dict):
            return {}
        known: dict[str, list[str]] = {}
        for digest, ids in data.items():
            listed = [ids] if isinstance(ids, str) else ids
            if isinstance(digest, str) and isinstance(listed, list):
                known[digest] = [i for i in listed if isinstance(i, str)]
        return known

    def recall(self, sha256: str) -> list[str]:
        """The fileIds remembered for this content, newest first."""
        return self._read().get(sha256, [])

    def remember(self, sha256: str, file_id: str) -> None:
        self._update(sha256, file_id, keep=True)

    def forget(self, sha256: str, file_id: str) -> None:
        self._update(sha256, file_id, keep=False)

    def _update(self, sha256: str, file_id: str, *, keep: bool) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _LOCK, self._file_lock:
            data = self._read()
            ids = [i for i in data.get(sha256, []) if i != file_id]
            if keep:
                ids = [file_id, *ids][:IDS_PER_CONTENT]
            if ids:
                data[sha256] = ids
            else:
                data.pop(sha256, None)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".media-memory")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
