"""Random hex for ids, cut from blocks of the operating system's randomness.

Every request gets an id (``ops.requests``) and every record one of its own
(``db.base.new_id``). Drawn one by one, each is a getrandom(2) call, and each call lets
go of the interpreter's lock, which under load costs the calling thread its turn to
whichever thread takes the lock meanwhile (the event loop above all, which every
request goes through). Here ids are cut from 4 KiB drawn at once: the same
randomness, one call per few hundred ids, each byte handed out once. A forked child
starts with nothing drawn, so two processes never hand out the same bytes.
"""

from __future__ import annotations

import os
import threading

BLOCK_BYTES = 4096

_lock = threading.Lock()
_block = b""
_used = 0


def token_hex(nbytes: int) -> str:
    """``nbytes`` random bytes as hex, as ``secrets.token_hex`` makes them."""
    global _block, _used
    with _lock:
        if _used + nbytes > len(_block):
            _block = os.urandom(max(BLOCK_BYTES, nbytes))
            _used = 0
        chunk = _block[_used : _used + nbytes]
        _used += nbytes
    return chunk.hex()


def _forget() -> None:
    global _block, _used
    _block = b""
    _used = 0


os.register_at_fork(after_in_child=_forget)
