"""Benchmark 6, first result: how long a user waits for the first published row.

Each figure runs a real command in a fresh process and times, from its start, the first
line saying that a Prefect task run published a post (``Task run '<platform> · …' -
Finished in state Completed()``, printed as it happens; the result table only comes at
the end). The run must then end with that post published, or the figure is refused.

- ``pressroom demo``, cold: a fresh data dir and a fresh ``PREFECT_HOME`` (the first run
  on a machine whose ``.venv`` is installed);
- ``pressroom demo``, warm: a fresh data dir, the ``PREFECT_HOME`` of an earlier run, which
  left its Prefect server running for the next runs (``prefect_keep``, the default); and,
  without a goal, the same with ``PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS=0``: a run
  after the kept server has stopped, or with keeping turned off;
- ``pressroom campaign run`` with ``PREFECT_API_URL`` set to a running ``prefect server``
  (started here with pressroom's server settings) and ``pressroom api`` running;
- ``pressroom demo``, cold, from a clone of the committed tree installed the plain way
  (``pip install -e '.[all]'`` in a new venv: no ``scripts/setup``, no constraints file, so
  pip picks the newest versions pyproject allows, as a user's install does). The install
  itself is not timed; the project's bytecode is removed before each run, as pip leaves it.

The goals: under 10 s for both cold rows, 5 s warm and 3 s beside a server. The baseline in the same run is
``python -c pass``, and ``python -c "import prefect"``: what no change of ours can remove.

Each command runs as a user's does, so a run with no server named leaves its server for
the next; the cold rows stop it (``pressroom prefect-stop``, untimed) before the next
round, so that each finds none running and none is left after the benchmark.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import (
    PRESSROOM,
    PYTHON,
    ROOT,
    free_port,
    pressroom_api,
    seed_account,
    summary,
)
from pressroom.pipeline import prefect_settings
from pressroom.pipeline.prefect_keep import IDLE_SECONDS_ENV
from pressroom.pipeline.serving import LocalPrefectServer
from pressroom.platforms import Platform

PUBLISHED = re.compile(
    r"Task run '(?:" + "|".join(p.value for p in Platform) + r") · [^']*' - Finished in state "
    r"Completed\(\)"
)
GOALS: dict[str, float | None] = {
    "demo_cold": 10.0,
    "demo_warm": 5.0,
    "demo_warm_not_kept": None,
    "run_on_server": 3.0,
    "demo_after_plain_install": 10.0,
}
NOT_KEPT = {IDLE_SECONDS_ENV: "0"}
CAMPAIGN = "name: first-result\nposts:\n  - id: hello\n    microblog: {text: hello}\n"


@dataclass(frozen=True)
class Config:
    runs: int = 3
    #: Runs after a plain install; 0 leaves the row out (the install takes minutes).
    plain_install_runs: int = 0


FULL = Config(runs=3, plain_install_runs=3)
QUICK = Config(runs=1)
SMOKE = Config(runs=1)


def first_published(
    argv: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT
) -> dict[str, float]:
    """Seconds from the start of ``argv`` to its first published row, and to its end."""
    started = time.perf_counter()
    first: float | None = None
    with log.open("w") as out:
        process = subprocess.Popen(
            argv,
            env={**env, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"},
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert process.stdout is not None
        for line in process.stdout:
            if first is None and PUBLISHED.search(line):
                first = time.perf_counter() - started
            out.write(line)
        code = process.wait(timeout=600)
    ended = time.perf_counter() - started
    text = log.read_text()
    if code != 0 or first is None or "published" not in text.split("Finished in state")[-1]:
        raise RuntimeError(f"{argv[1:3]} exited {code} without a published row:\n{text[-3000:]}")
    return {"first_published_seconds": first, "process_seconds": ended}


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "PRESSROOM_"))}


def _python(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([PYTHON, "-c", code], check=True, env=_clean_env())
    return time.perf_counter() - started


def run(work: Path, config: Config = FULL) -> dict[str, Any]:
    work.mkdir(parents=True, exist_ok=True)
    names = [n for n in GOALS if n != "demo_after_plain_install" or config.plain_install_runs]
    samples: dict[str, list[dict[str, float]]] = {name: [] for name in names}
    baseline: dict[str, list[float]] = {"python -c pass": [], "import prefect": []}
    warm_home = work / "prefect-warm"
    try:
        for i in range(config.runs):
            baseline["python -c pass"].append(_python("pass"))
            baseline["import prefect"].append(_python("import prefect"))
            cold_home = work / f"prefect-cold-{i}"
            env = {**_clean_env(), "PREFECT_HOME": str(cold_home)}
            log = work / f"demo_cold-{i}.log"
            samples["demo_cold"].append(first_published(_demo(work / f"demo_cold-{i}"), env, log))
            stop_kept(cold_home)
            env = {**_clean_env(), "PREFECT_HOME": str(warm_home)}
            if not warm_home.exists():
                # The earlier run the warm state needs, not measured.
                first_published(_demo(work / f"warmup-{i}"), env, work / "warmup.log")
            for name, extra in (("demo_warm", {}), ("demo_warm_not_kept", NOT_KEPT)):
                log = work / f"{name}-{i}.log"
                argv = _demo(work / f"{name}-{i}")
                samples[name].append(first_published(argv, {**env, **extra}, log))
    finally:
        stop_kept(warm_home)
    samples["run_on_server"] = _runs_on_server(work, config)
    if config.plain_install_runs:
        samples["demo_after_plain_install"] = _runs_after_plain_install(work, config)
    figures: dict[str, Any] = {}
    for name, runs in samples.items():
        figures[name] = {  # a row without a goal is shown beside the one that has it
            "goal_seconds": GOALS[name],
            "first_published": summary([r["first_published_seconds"] for r in runs]),
            "process": summary([r["process_seconds"] for r in runs]),
        }
    return {"figures": figures, "baseline": {k: summary(v) for k, v in baseline.items()}}


def stop_kept(home: Path, pressroom: str = PRESSROOM) -> None:
    """Stop the server a run left on ``home`` (``pressroom prefect-stop``), untimed."""
    env = {**_clean_env(), "PREFECT_HOME": str(home)}
    subprocess.run([pressroom, "prefect-stop"], env=env, check=True, capture_output=True)


def _demo(data_dir: Path) -> list[str]:
    return [PRESSROOM, "demo", "--data-dir", str(data_dir), "--port", str(free_port())]


def _runs_on_server(work: Path, config: Config) -> list[dict[str, float]]:
    """``campaign run`` against a running Prefect server and service."""
    env = _clean_env()
    env["PREFECT_HOME"] = str(work / "prefect-server")
    prefect_settings.apply(env, prefect_settings.SERVER)
    data_dir = work / "service"
    key = seed_account(data_dir, None, [("microblog", "@first", {})])
    campaign = work / "first-result.yaml"
    campaign.write_text(CAMPAIGN)
    previous = dict(os.environ)
    os.environ.update(env)  # the server inherits this process's environment
    server = LocalPrefectServer(free_port(), log_file=work / "prefect-server.log")
    try:
        api_url = server.start(timeout=180)
    finally:
        os.environ.clear()
        os.environ.update(previous)
    runs: list[dict[str, float]] = []
    try:
        with pressroom_api(data_dir, work / "service.log") as service:
            run_env = {
                **env,
                "PREFECT_API_URL": api_url,
                "PRESSROOM_BASE_URL": service.base_url,
                "PRESSROOM_API_KEY": key,
                "PRESSROOM_PIPELINE_STATE_DIR": str(work / "state"),
            }
            for i in range(config.runs):
                argv = [PRESSROOM, "campaign", "run", str(campaign), "--edition", f"e{i}"]
                runs.append(first_published(argv, run_env, work / f"server-run-{i}.log"))
    finally:
        server.stop()
    return runs


def _runs_after_plain_install(work: Path, config: Config) -> list[dict[str, float]]:
    """``pressroom demo`` from a new venv made by a plain ``pip install -e '.[all]'``."""
    repo = work / "plain-install"
    if repo.exists():
        shutil.rmtree(repo)
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(repo)], check=True)
    subprocess.run([PYTHON, "-m", "venv", str(repo / ".venv")], check=True)
    pip = [str(repo / ".venv/bin/python"), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "--quiet", "-e", ".[all]"], cwd=repo, check=True)
    pressroom = str(repo / ".venv/bin/pressroom")
    runs: list[dict[str, float]] = []
    for i in range(config.plain_install_runs):
        for cache in (repo / "src").rglob("__pycache__"):
            shutil.rmtree(cache)
        env = {
            **_clean_env(),
            "PREFECT_HOME": str(work / f"prefect-plain-{i}"),
            # A fresh user cache each run: a template built there by an earlier run
            # would hide a missing shipped one.
            "XDG_CACHE_HOME": str(work / f"cache-plain-{i}"),
        }
        argv = [
            pressroom,
            "demo",
            "--data-dir",
            str(work / f"plain-{i}"),
            "--port",
            str(free_port()),
        ]
        runs.append(first_published(argv, env, work / f"plain-{i}.log", cwd=repo))
        stop_kept(work / f"prefect-plain-{i}", pressroom)
    return runs
