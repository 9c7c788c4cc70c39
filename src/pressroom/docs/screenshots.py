"""The documentation's screenshots, what each picture shows of the code, and whether the
code changed since it was taken.

Each picture in ``docs/screenshots/`` is listed here with the files that draw it (its
page's template and every template it includes or extends, the dashboard's CSS and
script, the routes' module) and the command that retakes it. When a picture is taken,
``record`` writes a digest of those files beside it, in ``manifest.json``; ``stale``
names every picture whose files changed since, which a test turns into a failure that
says what to run. A picture the docs do not show is neither taken nor listed."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

DIRECTORY = Path("docs/screenshots")
MANIFEST = "manifest.json"
WEB = "src/pressroom/service/web"
TEMPLATES = f"{WEB}/templates"
DASHBOARD = (
    f"{WEB}/static/dashboard.css",
    f"{WEB}/static/dashboard.js",
    f"{WEB}/templating.py",
    f"{WEB}/views.py",
)
"""What every dashboard page is drawn with, beside its own template and route."""
E2E = "PRESSROOM_SCREENSHOTS=docs/screenshots .venv/bin/pytest -p no:cacheprovider"


@dataclass(frozen=True)
class Shot:
    """One picture: the template it shows, the other files that draw it, and how it is
    retaken."""

    template: str | None
    code: tuple[str, ...]
    retake: str


def _dashboard(template: str, route: str, test: str) -> Shot:
    return Shot(
        template,
        (f"{WEB}/routes/{route}.py", *DASHBOARD),
        f"{E2E} tests/e2e/{test}",
    )


JOURNEY = "test_dashboard.py -k test_the_journey_of_a_new_user"
CONSENT = Shot(
    "consent.html",
    (
        "src/pressroom/service/drivers/sandbox_pages.py",
        "src/pressroom/service/drivers/grants.py",
        *DASHBOARD,
    ),
    f"{E2E} tests/e2e/{JOURNEY}",
)
SHOTS: dict[str, Shot] = {
    "account": _dashboard(
        "account.html", "settings", "test_dashboard.py -k test_sign_out_everywhere"
    ),
    "api-keys-revealed": _dashboard("api_keys.html", "settings", JOURNEY),
    "connections": _dashboard("connections.html", "connections", JOURNEY),
    "connections-inactive": _dashboard("connections.html", "connections", JOURNEY),
    "consent-microblog": CONSENT,
    "consent-photo_sharing": CONSENT,
    "consent-pin_board": CONSENT,
    "media": _dashboard("media.html", "media", JOURNEY),
    "overview": _dashboard("overview.html", "overview", JOURNEY),
    "post-partial": _dashboard("post_detail.html", "posts", "test_posts_browser.py"),
    "posts": _dashboard("posts.html", "posts", JOURNEY),
    "rotate-confirm": _dashboard("rotate_confirm.html", "settings", JOURNEY),
    "sign-in": _dashboard("sign_in.html", "auth", "test_dashboard.py -k test_sign_out_everywhere"),
    "sign-in-throttled": _dashboard(
        "sign_in.html", "auth", "test_dashboard.py -k test_sign_in_is_throttled"
    ),
    "sign-up": _dashboard("sign_up.html", "auth", JOURNEY),
    "webhook-deliveries": _dashboard(
        "webhook_deliveries.html", "webhooks", "test_dashboard.py -k test_webhooks_are_managed"
    ),
    "webhook-secret": _dashboard(
        "webhooks.html", "webhooks", "test_dashboard.py -k test_webhooks_are_managed"
    ),
    "webhooks": _dashboard(
        "webhooks.html", "webhooks", "test_dashboard.py -k test_webhooks_are_managed"
    ),
    "prefect-run": Shot(
        None,
        ("flows/run_campaign.py", "tasks/media.py", "tasks/publishing.py", "pipelines/demo.yaml"),
        ".venv/bin/python scripts/screenshots.py",
    ),
}
"""Every picture the docs show, by its file's name without ``.png``."""


def _templates(template: str, root: Path) -> list[str]:
    """The template and every one it includes, extends or imports, by their paths."""
    from jinja2 import Environment, FileSystemLoader, meta

    environment = Environment(loader=FileSystemLoader(root / TEMPLATES), autoescape=True)
    found: list[str] = []
    waiting = [template]
    while waiting:
        name = waiting.pop()
        if name in found:
            continue
        found.append(name)
        source = (root / TEMPLATES / name).read_text(encoding="utf-8")
        waiting += [n for n in meta.find_referenced_templates(environment.parse(source)) if n]
    return [f"{TEMPLATES}/{name}" for name in sorted(found)]


def inputs(name: str, root: Path = Path(".")) -> list[str]:
    """The files the picture ``name`` is drawn from, as paths from the project's root."""
    shot = SHOTS[name]
    drawn = _templates(shot.template, root) if shot.template else []
    return sorted({*drawn, *shot.code})


def digest(name: str, root: Path = Path(".")) -> str:
    """One digest of every file the picture is drawn from, with its path."""
    hashed = hashlib.sha256()
    for path in inputs(name, root):
        hashed.update(path.encode() + b"\0" + (root / path).read_bytes() + b"\0")
    return hashed.hexdigest()


def _manifest(directory: Path) -> dict[str, str]:
    path = directory / MANIFEST
    if not path.exists():
        return {}
    loaded: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


def record(name: str, directory: Path, root: Path = Path(".")) -> None:
    """Note beside the pictures that ``name`` was just taken from the files as they are."""
    manifest = _manifest(directory) | {name: digest(name, root)}
    (directory / MANIFEST).write_text(
        json.dumps(dict(sorted(manifest.items())), indent=2) + "\n", encoding="utf-8"
    )


def stale(root: Path = Path(".")) -> dict[str, str]:
    """Each picture of ``docs/screenshots`` taken before its files last changed (or never
    recorded), with the command that retakes it."""
    taken = _manifest(root / DIRECTORY)
    return {
        name: shot.retake for name, shot in SHOTS.items() if taken.get(name) != digest(name, root)
    }
