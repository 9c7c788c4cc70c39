"""Ranges in pyproject.toml, exact versions in constraints.txt, and the install uses them."""

from __future__ import annotations

import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = project["dependencies"] + [
        r for rs in project["optional-dependencies"].values() for r in rs
    ]
    return [Requirement(r) for r in listed]


def pins() -> dict[str, str]:
    found = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, pinned = line.partition("==")
            assert pinned, f"not an exact pin: {line}"
            found[canonicalize_name(name)] = pinned.strip()
    return found


def test_requirements_are_ranges_and_constraints_pin_each_of_them() -> None:
    pinned = pins()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for requirement in requirements():
        if requirement.name == "pressroom":  # an extra made of others: it must exist
            assert requirement.extras <= set(extras), requirement
            continue
        assert not any(s.operator in ("==", "===") for s in requirement.specifier), requirement
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} has no exact version in constraints.txt"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {name}=={pinned[name]}, outside {requirement}"
        )
    assert pinned["prefect"] == "3.8.8"


def test_floors_admit_no_version_the_code_cannot_run_on() -> None:
    by_name = {canonicalize_name(r.name): r for r in requirements()}
    # Depends(scope="function") (pressroom.service.deps) arrived in FastAPI 0.121.0
    assert not by_name["fastapi"].specifier.contains("0.120.9")
    assert by_name["fastapi"].specifier.contains("0.121.0")
    assert "prometheus-client" in by_name


def test_the_environment_was_installed_with_the_constraints() -> None:
    assert "-c constraints.txt" in (ROOT / "scripts/setup").read_text()
    wrong = {}
    for name, pinned in pins().items():
        try:
            installed = version(name)
        except PackageNotFoundError:
            continue  # a platform's own extra, not installed here
        if Version(installed) != Version(pinned):
            wrong[name] = (installed, pinned)
    assert wrong == {}
