"""What was uploaded where: content hash → fileId, per service address.

Scheduled runs of a campaign upload the same media every time; remembering them saves
the monthly upload quota. A remembered id is only a hint: the step checks it with a
status call before reuse (another account's id is a 404 there, a deleted file too), and
forgets it when the check fails. The memory is one small JSON file, written atomically.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from pathlib import Path

_LOCK = threading.Lock()


class MediaMemory:
    def __init__(self, path: Path, service_url: str) -> None:
        self.path = path
        self.service = service_url.rstrip("/")

    def _read(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return {}
        return data if isinstance(data, dict) else {}

    def recall(self, sha256: str) -> str | None:
        with _LOCK:
            return self._read().get(self.service, {}).get(sha256)

    def remember(self, sha256: str, file_id: str) -> None:
        self._update(sha256, file_id)

    def forget(self, sha256: str) -> None:
        self._update(sha256, None)

    def _update(self, sha256: str, file_id: str | None) -> None:
        with _LOCK:
            data = self._read()
            known = data.setdefault(self.service, {})
            if file_id is None:
                known.pop(sha256, None)
            else:
                known[sha256] = file_id
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".media-memory")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
            os.replace(tmp, self.path)
