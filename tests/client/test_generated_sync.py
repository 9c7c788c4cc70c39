"""The blocking client is generated from the async one: the committed file is not stale."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path
from types import ModuleType

from pressroom.client import AsyncClient, Client

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "unasync.py"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("unasync_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_sync_client_is_what_the_generator_writes(tmp_path: Path) -> None:
    generator = _generator()
    fresh = generator.generate(tmp_path).read_text(encoding="utf-8")
    committed = generator.TARGET.read_text(encoding="utf-8")
    assert fresh == committed, "_sync.py is stale: run `python scripts/unasync.py`"
    assert committed.startswith("# This file is generated from _async.py")


def test_both_clients_have_the_same_methods_and_parameters() -> None:
    def methods(cls: type, *, close: str) -> dict[str, list[str]]:
        found = {
            name: list(inspect.signature(member).parameters)
            for name, member in vars(cls).items()
            if callable(member) and not name.startswith("_")
        }
        found["close"] = found.pop(close)
        return found

    assert methods(AsyncClient, close="aclose") == methods(Client, close="close")
    assert {"__aenter__", "__aexit__"} <= set(vars(AsyncClient))
    assert {"__enter__", "__exit__"} <= set(vars(Client))
