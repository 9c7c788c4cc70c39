"""What was uploaded where: content hash → fileId, for one service address and account.

Scheduled runs of a campaign upload the same media every time; remembering them saves
the monthly upload quota. A remembered id is only a hint: the step checks it with a
status call before reuse (another account's id is a 404 there, a deleted file too), and
forgets it when the check fails. The memory is one small JSON file, written atomically
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


class MediaMemory:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._file_lock = FileLock(str(path) + ".lock", timeout=60)

    def _read(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}

    def recall(self, sha256: str) -> str | None:
        return self._read().get(sha256)

    def remember(self, sha256: str, file_id: str) -> None:
        self._update(sha256, file_id)

    def forget(self, sha256: str) -> None:
        self._update(sha256, None)

    def _update(self, sha256: str, file_id: str | None) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with _LOCK, self._file_lock:
            data = self._read()
            if file_id is None:
                data.pop(sha256, None)
            else:
                data[sha256] = file_id
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".media-memory")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
