"""Run every benchmark and write the markdown report.

    .venv/bin/python benchmarks/run_all.py            # full: about 25 minutes
    .venv/bin/python benchmarks/run_all.py --quick    # fewer and shorter runs
    .venv/bin/python benchmarks/run_all.py --only fanout,validation

A full run of every benchmark writes ``benchmarks/REPORT.md`` (and its figures as ``REPORT.json``)
and copies the report's tables into ``benchmarks/README.md``; other runs write
``benchmarks/REPORT-quick.md`` (or ``--output``). A benchmark that fails is reported as
such and the others still run. Load generators target 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import fanout, readiness, report, startup, throughput, uploads, validation
from benchmarks.common import (
    ROOT,
    load_average,
    machine,
    postgres_server_url,
    postgres_version,
)

HERE = ROOT / "benchmarks"
BENCHMARKS: dict[str, Any] = {
    "fanout": fanout,
    "throughput": throughput,
    "uploads": uploads,
    "validation": validation,
    "readiness": readiness,
    "startup": startup,
}
PROFILES = ("full", "quick", "smoke")
README_START = "<!-- results:start -->"
README_END = "<!-- results:end -->"


def run(
    names: list[str],
    profile: str,
    work: Path,
    *,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Run the named benchmarks in one profile; returns every figure."""
    started = time.perf_counter()
    server = postgres_server_url()
    results: dict[str, Any] = {
        "started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "mode": profile,
        "machine": machine(),
        "postgres_version": postgres_version(server) if server else None,
        "load_start": load_average(),
        "benchmarks": {},
    }

    def one(name: str) -> None:
        results["benchmarks"][name] = run_one(name, profile, work, log)

    if profile == "smoke" and "fanout" in names:
        # A smoke run measures nothing: the fan-out (mostly Prefect's start-up) runs in
        # another process beside the others to keep it short. Real runs never overlap.
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as beside:
            pending = beside.submit(run_one, "fanout", profile, work)
            for name in names:
                if name != "fanout":
                    one(name)
            results["benchmarks"]["fanout"] = pending.result()
        results["benchmarks"] = {n: results["benchmarks"][n] for n in names}
    else:
        for name in names:
            one(name)
    results["load_end"] = load_average()
    results["elapsed_seconds"] = time.perf_counter() - started
    return results


def run_one(
    name: str, profile: str, work: Path, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """One benchmark; a failure is recorded as its result, so the others still run."""
    module = BENCHMARKS[name]
    config = getattr(module, profile.upper())
    log(f"[{time.strftime('%H:%M:%S')}] {name} ({profile}) …")
    mark = time.perf_counter()
    try:
        found: dict[str, Any] = module.run(work / name, config)
    except Exception as exc:
        log(traceback.format_exc())
        found = {"error": f"{type(exc).__name__}: {exc}"[:2000]}
    found["seconds"] = time.perf_counter() - mark
    log(f"[{time.strftime('%H:%M:%S')}] {name} done in {found['seconds']:.0f} s")
    return found


def merge(previous: dict[str, Any], rerun: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """The report of ``previous`` with the benchmarks ``names`` replaced by the re-run's.

    The machine is the re-run's (its load and versions are the latest); PostgreSQL's
    version too when the re-run reached it, so that a full run made without PostgreSQL
    and a throughput re-run with it name the server the report's PostgreSQL rows ran on.
    """
    merged = {**previous, "benchmarks": {**previous["benchmarks"], **rerun["benchmarks"]}}
    merged["machine"] = rerun["machine"]
    merged["postgres_version"] = rerun.get("postgres_version") or previous.get("postgres_version")
    merged["reruns"] = [*previous.get("reruns", []), f"{rerun['started']}: {', '.join(names)}"]
    return merged


def update_readme(markdown: str, readme: Path = HERE / "README.md") -> None:
    """Copy the report (without its title) between the README's result markers."""
    text = readme.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return
    body = markdown.split("\n", 2)[2].replace("\n## ", "\n### ")
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    readme.write_text(f"{head}{README_START}\n{body}\n{README_END}{tail}", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    speed = parser.add_mutually_exclusive_group()
    speed.add_argument("--quick", action="store_true", help="fewer, shorter runs")
    speed.add_argument("--smoke", action="store_true", help="tiny runs, for CI's smoke test")
    parser.add_argument("--only", help=f"comma-separated subset of: {', '.join(BENCHMARKS)}")
    parser.add_argument("--output", type=Path, help="report path (default: see above)")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="with --only on a full run: replace those benchmarks in REPORT.json and "
        "rewrite REPORT.md and the README from it",
    )
    args = parser.parse_args(argv)

    names = list(BENCHMARKS)
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = sorted(set(names) - set(BENCHMARKS))
        if unknown:
            parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    profile = "quick" if args.quick else "smoke" if args.smoke else "full"
    complete = profile == "full" and (names == list(BENCHMARKS) or args.merge)
    output = args.output or HERE / ("REPORT.md" if complete else f"REPORT-{profile}.md")

    work = args.work or Path(tempfile.mkdtemp(prefix="pressroom-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        results = run(names, profile, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    results["command"] = "python benchmarks/run_all.py" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:])
    )
    previous = output.with_suffix(".json")
    if args.merge and previous.exists():
        results = merge(json.loads(previous.read_text()), results, names)
    markdown = report.render(results)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(markdown, encoding="utf-8")
    output.with_suffix(".json").write_text(json.dumps(results, indent=1, default=str))
    if complete and args.output is None:
        update_readme(markdown)
    print(f"report: {os.path.relpath(output)}")
    failed = [n for n, r in results["benchmarks"].items() if "error" in r]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
