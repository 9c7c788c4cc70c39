"""The package's shape: what it exports, and what it never imports."""

from __future__ import annotations

import subprocess
import sys

import pressroom.client
from pressroom.client import errors


def test_all_is_explicit_sorted_and_every_name_resolves() -> None:
    names = pressroom.client.__all__
    assert len(names) == len(set(names))
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    for name in names:
        assert hasattr(pressroom.client, name), name


def test_every_error_class_is_exported_from_the_package() -> None:
    for name in errors.__all__:
        assert getattr(pressroom.client, name) is getattr(errors, name)
    assert set(errors.__all__) <= set(pressroom.client.__all__)


def test_importing_the_client_loads_neither_the_service_nor_the_pipeline() -> None:
    # A fresh interpreter: this test process has long since imported all of them.
    heavy = ["fastapi", "starlette", "sqlalchemy", "boto3", "prefect", "av", "PIL"]
    code = (
        "import sys, pressroom.client\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
        "print(sorted(m for m in sys.modules if m.startswith('pressroom.service')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.splitlines() == ["[]", "[]"], done.stdout + done.stderr
