"""The markdown report: every figure as median (min–max) of its runs, beside its baseline
from the same run and their ratio."""

from __future__ import annotations

import math
from typing import Any

Sample = dict[str, Any]


def num(value: float, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.{digits}f}"


def med(sample: Sample | None, digits: int = 2, unit: str = "") -> str:
    """``median (min–max)``; a single run shows its value alone."""
    if not sample or not sample.get("runs"):
        return "—"
    text = num(sample["median"], digits) + unit
    if sample["runs"] > 1:
        text += f" ({num(sample['min'], digits)}–{num(sample['max'], digits)})"
    return text


def ratio(sample: Sample | None) -> str:
    if not sample or not sample.get("runs"):
        return "—"
    text = f"{sample['median']:.2f}×"
    if sample["runs"] > 1:
        text += f" ({sample['min']:.2f}–{sample['max']:.2f})"
    return text


def loads(section: dict[str, Any]) -> str:
    found = section.get("load_average") or {}
    parts = []
    for when in ("before", "after"):
        if when in found:
            parts.append(f"{when} {' / '.join(f'{x:.2f}' for x in found[when])}")
    return "load average (1/5/15 min) " + ", ".join(parts) if parts else ""


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


# --- sections ----------------------------------------------------------------------------


def machine(results: dict[str, Any]) -> list[str]:
    m = results["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in m["versions"].items())
    lines = [
        "## Machine",
        "",
        *table(
            ["", ""],
            [
                ["CPU", f"{m['cpu']}, {m['cores']} cores"],
                ["memory", m["memory"]],
                ["OS", m["os"]],
                ["Python", m["python"]],
                ["versions", versions],
                ["PostgreSQL", results.get("postgres_version") or "—"],
                [
                    "load average at start / end",
                    " / ".join(f"{x:.2f}" for x in results["load_start"])
                    + " — "
                    + " / ".join(f"{x:.2f}" for x in results.get("load_end", [])),
                ],
            ],
        ),
        "",
        "The machine is shared with other people's test runs, and the load generators, the "
        "service, PostgreSQL and Prefect all run on its cores together: only the ratios "
        "against a baseline of the same run carry over to other machines. The load average "
        "is noted for each benchmark.",
    ]
    return lines


def fanout(r: dict[str, Any]) -> list[str]:
    lines = [
        "## 1. Campaign fan-out",
        "",
        f"{r['requests']} publish requests (8 platforms × {r['connections_per_platform']} "
        f"connections), sandbox latency {r['latency_ms']} ms, at most {r['concurrency']} in "
        f"flight and {r['platform_concurrency']} per platform, for the flow and for the plain "
        f"asyncio + httpx script alike. Ideal: {r['requests']} × {r['latency_ms'] / 1000:g} s "
        f"/ {r['concurrency']} = **{r['ideal_seconds']:.2f} s**. {loads(r)}.",
        "",
    ]
    rows = []
    for mode, f in r["modes"].items():
        startup = med(f["startup_seconds"], unit=" s")
        if f.get("server_start_seconds"):
            startup = f"server {med(f['server_start_seconds'], unit=' s')}; client {startup}"
        rows.append(
            [
                mode,
                startup,
                med(f["flow_seconds"], unit=" s"),
                med(f["script_seconds"], unit=" s"),
                "**" + ratio(f["ratio"]) + "**",
                _over(f["flow_seconds"]["median"], r["ideal_seconds"]),
                _over(f["script_seconds"]["median"], r["ideal_seconds"]),
                str(f["flow_seconds"]["runs"]),
            ]
        )
    lines += table(
        [
            "Prefect",
            "Prefect start-up",
            "flow run",
            "plain script (baseline)",
            "flow ÷ script",
            "flow ÷ ideal",
            "script ÷ ideal",
            "runs",
        ],
        rows,
    )
    whole_processes = (
        (
            "whole_process",
            "Whole process, what a user waits for: `pressroom campaign run` from its start to "
            "its exit (imports, its temporary Prefect server, the plan, the run, the shutdown)",
        ),
        (
            "whole_process_on_server",
            "The same beside a running Prefect server (`PREFECT_API_URL` set, as beside "
            "`pressroom serve`, so the command starts none)",
        ),
    )
    for key, what in whole_processes:
        whole = r.get(key)
        if whole and whole["ratio"]["runs"]:
            met = whole["ratio"]["median"] <= whole["goal_ratio"]
            lines += [
                "",
                f"{what}: {med(whole['flow_process_seconds'], unit=' s')}, the script's "
                f"process {med(whole['script_process_seconds'], unit=' s')}: "
                f"**{ratio(whole['ratio'])}**, goal ≤ {whole['goal_ratio']:g}×: "
                + ("met." if met else "**not met**."),
            ]
            if whole.get("plain_prefect_ratio", {}).get("runs"):
                lines += [
                    "",
                    "The same requests as a plain Prefect flow in the same rounds "
                    "(`fanout_plain_prefect.py`: a bare `@task` per publish, Prefect as it "
                    f"comes): its process {med(whole['plain_prefect_process_seconds'], unit=' s')}, "
                    f"**{ratio(whole['plain_prefect_ratio'])}** the script's; its flow "
                    f"{ratio(whole['plain_prefect_flow_ratio'])} the script's requests.",
                ]
    lines += [
        "",
        "Orchestration overhead per task (a task = one publish request):",
        "",
    ]
    rows = []
    for mode, f in r["modes"].items():
        rows.append(
            [
                mode,
                med(f["overhead_wall_ms_per_task"], 1, " ms"),
                med(f["overhead_cpu_ms_per_task"], 1, " ms"),
                med(f["flow_process_cpu_seconds"], unit=" s"),
                med(f["prefect_server_cpu_seconds"], unit=" s"),
                med(f["script_cpu_seconds"], unit=" s"),
                med(f["service_cpu_seconds_flow"], unit=" s")
                + " / "
                + med(f["service_cpu_seconds_script"], unit=" s"),
                med(f["drain_seconds"], unit=" s"),
            ]
        )
    lines += table(
        [
            "Prefect",
            "wall: (flow − script) ÷ requests",
            "CPU: (flow process + Prefect server − script) ÷ requests",
            "flow process CPU",
            "Prefect server CPU",
            "script CPU",
            "service CPU, flow / script",
            "event drain after the run",
        ],
        rows,
    )
    overheads = [
        (mode, f["task_overhead"]) for mode, f in r["modes"].items() if f.get("task_overhead")
    ]
    if overheads:
        n = overheads[0][1]["tasks"]
        lines += [
            "",
            f"Prefect's own cost per task, without the service: flows of {n} no-op tasks on "
            "the same 16-thread task runner, a bare `@task` and one with the publish task's "
            "exactly-once options (cache key per post, its key and result persisted to "
            "the pipeline's state folder):",
            "",
        ]
        rows = []
        for mode, found in overheads:
            for kind in ("plain", "exactly-once"):
                rows.append(
                    [
                        mode,
                        f"`{kind}`",
                        med(found[kind]["wall_ms_per_task"], 1, " ms"),
                        med(found[kind]["cpu_ms_per_task"], 1, " ms"),
                    ]
                )
        lines += table(
            ["Prefect", "task", "wall per task", "CPU per task (flow process + server)"], rows
        )
    lines += [
        "",
        "Flow run times in the order they ran (slowdowns on repeated runs show here):",
        "",
    ]
    for mode, f in r["modes"].items():
        runs = "; ".join(", ".join(f"{x:.2f}" for x in seq) for seq in f["flow_seconds_in_order"])
        lines.append(f"- {mode}: {runs} s")
    gf = [
        (mode, f["ratio_global_first_to_script"])
        for mode, f in r["modes"].items()
        if f.get("ratio_global_first_to_script")
    ]
    if gf:
        lines += [
            "",
            "Head-of-line blocking: the same script taking the global slot *before* its "
            "platform's (as a pool of 16 worker threads does when each task then waits for "
            "its platform) takes, against the platform-first script:",
            "",
        ]
        for mode, sample in gf:
            interleaved = r["modes"][mode].get("ratio_interleaved_to_script")
            lines.append(
                f"- runs beside {mode}: {ratio(sample)}"
                + (
                    f"; the same with the requests reordered round robin over the platforms: "
                    f"{ratio(interleaved)}"
                    if interleaved
                    else ""
                )
            )
    variants = [(mode, f["settings"]) for mode, f in r["modes"].items() if f.get("settings")]
    if variants:
        lines += ["", "Experiments (not the pipeline's defaults):", ""]
        for mode, settings in variants:
            lines.append(f"- {mode}: " + ", ".join(f"`{k}={v}`" for k, v in settings.items()))
    goal = r.get("flow_goal_ratio", 1.25)
    met = {
        mode: f["ratio"]["median"] <= goal
        for mode, f in r["modes"].items()
        if not f.get("settings")
    }
    lines += [
        "",
        f"Goal (flow run within {goal:g}× of the script): "
        + "; ".join(f"{mode} **{'met' if ok else 'not met'}**" for mode, ok in met.items())
        + ".",
    ]
    lines += profiles_text(
        {mode: f.get("profile") for mode, f in r["modes"].items() if f.get("profile")},
        "Profiles of one extra flow run (py-spy; shares of the working samples by the "
        "package of the running frame, see `profiles.py`):",
    )
    return lines


def _over(value: float, ideal: float) -> str:
    return f"{value / ideal:.2f}×" if ideal else "—"


def profiles_text(found: dict[str, Any], intro: str) -> list[str]:
    if not found:
        return []
    lines = ["", intro, ""]
    for name, per_process in found.items():
        if not per_process:
            continue
        if "self_by_package" in per_process:
            per_process = {"": per_process}
        for process, summary in per_process.items():
            if not summary or not summary.get("samples"):
                continue
            top = ", ".join(f"{pkg} {share:.0%}" for pkg, share in summary["self_by_package"][:7])
            funcs = ", ".join(
                f"`{fn}` {share:.0%}" for fn, share in summary["self_by_function"][:5]
            )
            label = f"{name} · {process}" if process else name
            waiting = summary.get("waiting_samples")
            counted = f"{summary['samples']} working samples" + (
                f", {waiting} waiting left out" if waiting is not None else ""
            )
            lines.append(f"- **{label}** ({counted}): {top}. Busiest: {funcs}.")
    return lines


def throughput(r: dict[str, Any]) -> list[str]:
    lines = [
        "## 2. API throughput",
        "",
        f"{r['connections']} concurrent connections, closed loop, rate limit off, sandbox "
        f"latency 0; load from a separate process ({', '.join(r['generators'])}"
        + ("; wrk not installed" if r.get("wrk_missing") else "")
        + f"; {r.get('duration', 0):g} s measured after a {r.get('warmup', 0):g} s warm-up). "
        "Baselines (ratio 1.00×): "
        + ", ".join(f"`{b}`" for b in r.get("baselines", []))
        + ", routes of a bare FastAPI app (`bare_app.py`) on the same stack; each other "
        "figure is divided by its baseline (named in the table) of the same run. "
        f"{loads(r)}.",
    ]
    for missing in r.get("missing", []):
        lines += ["", f"Not measured: {missing}."]
    for db, d in r["databases"].items():
        listed = d.get("listed_connections")
        for generator, per_endpoint in d["figures"].items():
            lines += ["", f"**{db}, load from {generator}:**", ""]
            rows = []
            for endpoint, f in per_endpoint.items():
                goal = f.get("goal")
                verdict = ""
                if goal is not None:
                    verdict = f"≥ {goal:.2f}×: " + ("met" if f.get("met") else "**not met**")
                shown = f"`{endpoint}`"
                if endpoint.startswith("GET /api/connections/unified") and listed:
                    shown += f" ({listed} connections)"
                rows.append(
                    [
                        shown,
                        med(f["rps"], 0),
                        f"`{f['baseline']}`" if f.get("baseline") else "(baseline)",
                        ratio(f["rps_ratio"]),
                        verdict,
                        med(f["p50_ms"], 1),
                        med(f["p99_ms"], 1),
                        med(f.get("service_cpu_ms"), 2, " ms"),
                        _errors(f),
                    ]
                )
            lines += table(
                [
                    "endpoint",
                    "requests/s",
                    "baseline",
                    "÷ baseline",
                    "goal",
                    "p50 ms",
                    "p99 ms",
                    "server CPU per request",
                    "non-2xx / errors",
                ],
                rows,
            )
    lines += [""]
    for db, d in r["databases"].items():
        runs = "; ".join(
            f"{generator}: " + ", ".join(f"{x:.0f}" for x in per_endpoint[PUBLISH]["rps"]["values"])
            for generator, per_endpoint in d["figures"].items()
            if PUBLISH in per_endpoint
        )
        stored = d.get("stored_rows") or {}
        lines.append(
            f"- {db}: publish requests/s run by run ({runs})"
            + (
                f"; left behind: {stored.get('idempotency_keys', 0):,} idempotency keys, "
                f"{stored.get('posts', 0):,} post records"
                if stored
                else ""
            )
            + "."
        )
    growth = r.get("key_growth")
    if growth:
        lines += [
            "",
            f"Experiment: publishing on SQLite with {growth['keys']:,} earlier idempotency "
            "keys in the account (every claim purges the account's expired keys), with the "
            "`(account_id, expires_at)` index of migration 0003 and on a copy without it, as "
            "the schema was before (httpx load):",
            "",
        ]
        rows = [
            [
                name,
                med(v["rps"], 0),
                med(v["p99_ms"], 0),
                med(v["service_cpu_ms"], 1, " ms"),
            ]
            for name, v in growth["variants"].items()
        ]
        lines += table(["database", "requests/s", "p99 ms", "service CPU per publish"], rows)
    for db, d in r["databases"].items():
        lines += profiles_text(
            d.get("profiles") or {},
            f"Where the service's time goes on {db} (py-spy on the service under the httpx "
            "load; shares of the working samples by the package of the running frame, see "
            "`profiles.py`):",
        )
    return lines


PUBLISH = "POST /api/v2/microblog/publish"


def _errors(f: dict[str, Any]) -> str:
    errors = [e for e in f.get("errors", []) if e]
    bad = 0
    for statuses in f.get("statuses", []):
        bad += sum(n for s, n in statuses.items() if not s.startswith("2"))
    for e in errors:
        bad += sum(int(v) for v in e.values())
    return str(bad)


def uploads(r: dict[str, Any]) -> list[str]:
    lines = ["## 3. Uploads and downloads", ""]
    if r.get("note"):
        lines += [f"Note: {r['note']}.", ""]
    lines += [
        "A presigned PUT to the local backend with `curl -T` (the performance issue's row), "
        "the same file PUT by `pressroom.client` (1 MiB chunks), then the download back "
        "(`GET /api/upload/direct/{id}`), against `shutil.copyfile` of the same file on "
        "the same disk in the same run. The PUT fsyncs before it answers, so its "
        "like-for-like baseline is copyfile + fsync; the download is not fsynced, like "
        f"copyfile alone. {loads(r)}.",
        "",
    ]
    rows = []
    for size, f in r["sizes"].items():
        if "curl_put_mib_s" not in f:
            continue
        goal = r.get("goal")
        verdict = ""
        if goal is not None and size == str(r.get("row", {}).get("size_mib")):
            met = f["curl_put_to_copy_fsync"]["median"] >= goal
            verdict = f"≥ {goal:.2f}×: " + ("met" if met else "**not met**")
        rows.append(
            [
                f"{size} MiB",
                med(f["curl_put_mib_s"], 0),
                med(f["copy_fsync_mib_s"], 0),
                "**" + ratio(f["curl_put_to_copy_fsync"]) + "**",
                verdict,
                med(f["curl_put_service_cpu_per_gib"], 2, " s"),
                med(f["curl_put_client_cpu_per_gib"], 2, " s"),
                med(f["curl_after_put_growth_mib"], 1, " MiB"),
                str(f["runs"]),
            ]
        )
    if rows:
        lines += table(
            [
                "file",
                "`curl -T` PUT MiB/s",
                "copyfile + fsync MiB/s",
                "PUT ÷ (copy + fsync)",
                "goal",
                "service CPU per GiB",
                "curl CPU per GiB",
                "peak − idle memory",
                "runs",
            ],
            rows,
        )
        floors = [
            f"{size} MiB: receiving alone (a bare ASGI app under uvicorn dropping the "
            f"bytes, `drain_app`) {med(f['drain_mib_s'], 0)} MiB/s with "
            f"{med(f['drain_server_cpu_per_gib'], 2, ' s')} of server and "
            f"{med(f['drain_curl_cpu_per_gib'], 2, ' s')} of curl CPU per GiB; "
            f"`hashlib.sha256` {med(f['hash_cpu_per_gib'], 2, ' s')} per GiB; writing from "
            f"memory + fsync {med(f['write_fsync_cpu_per_gib'], 2, ' s')} per GiB. Shared "
            f"perfectly by two cores: {med(f['floor_seconds'], 2, ' s')} for the file, "
            f"**{ratio(f['floor_to_copy_fsync'])}** copy + fsync at best"
            for size, f in r["sizes"].items()
            if "floor_seconds" in f
        ]
        lines += [
            "",
            "The floor of any PUT on this stack (the CPU of each part alone, same file "
            "and disk, same run):",
            "",
            *[f"- {floor}" for floor in floors],
            "",
            "Through `pressroom.client`:",
            "",
        ]
    rows = []
    for size, f in r["sizes"].items():
        rows.append(
            [
                f"{size} MiB",
                med(f["put_mib_s"], 0),
                med(f["get_mib_s"], 0),
                med(f["copy_mib_s"], 0),
                med(f["copy_fsync_mib_s"], 0),
                ratio(f["put_to_copy_fsync"]),
                ratio(f["put_to_copy"]),
                ratio(f["get_to_copy"]),
                str(f["runs"]),
            ]
        )
    lines += table(
        [
            "file",
            "PUT MiB/s",
            "GET MiB/s",
            "copyfile MiB/s",
            "copyfile + fsync MiB/s",
            "PUT ÷ (copy + fsync)",
            "PUT ÷ copy",
            "GET ÷ copy",
            "runs",
        ],
        rows,
    )
    floors = [
        f"{size} MiB: `hashlib.sha256` alone {med(f['hash_mib_s'], 0)} MiB/s, "
        f"{ratio(f['hash_to_copy_fsync'])} copy + fsync; read, hash, write and fsync on "
        f"one thread {med(f['hash_copy_fsync_mib_s'], 0)} MiB/s, "
        f"{ratio(f['hash_copy_to_copy_fsync'])}"
        for size, f in r["sizes"].items()
        if "hash_mib_s" in f
    ]
    if floors:
        lines += [
            "",
            "The PUT's work per byte without the network, same file and disk, same run "
            "(what the ratio could reach with receiving free):",
            "",
            *[f"- {floor}" for floor in floors],
        ]
    rows = []
    for size, f in r["sizes"].items():
        if "put_service_cpu_s" not in f:
            continue
        rows.append(
            [
                f"{size} MiB",
                med(f.get("put_seconds"), unit=" s"),
                med(f["put_service_cpu_s"], unit=" s"),
                med(f["put_client_cpu_s"], unit=" s"),
                med(f["get_service_cpu_s"], unit=" s"),
                med(f["get_client_cpu_s"], unit=" s"),
            ]
        )
    if rows:
        lines += ["", "Where the time goes (CPU seconds from `/proc`, both on the same cores):", ""]
        lines += table(
            [
                "file",
                "PUT wall",
                "PUT: service CPU",
                "PUT: client CPU",
                "GET: service CPU",
                "GET: client CPU",
            ],
            rows,
        )
    lines += ["", "Memory of the `pressroom api` process (`/proc/<pid>/status`):", ""]
    rows = []
    for size, f in r["sizes"].items():
        rows.append(
            [
                f"{size} MiB",
                med(f["idle_rss_mib"], 1, " MiB"),
                med(f["peak_hwm_mib"], 1, " MiB"),
                "**" + med(f["growth_mib"], 1, " MiB") + "**",
                "yes" if f["within_budget"] else "**no**",
                "yes" if f["same_bytes"] else "**no**",
            ]
        )
    lines += table(
        [
            "file",
            "idle (VmRSS, warmed up)",
            "peak (VmHWM)",
            "peak − idle",
            "within 64 MiB",
            "bytes back identical",
        ],
        rows,
    )
    return lines


def validation(r: dict[str, Any]) -> list[str]:
    lines = [
        "## 4. Validation",
        "",
        "Each command a fresh process, as an editor or a pre-commit hook runs it; runs "
        f"interleaved with the baseline. Target: under {r['target_seconds']:g} s for the "
        f"examples. {loads(r)}.",
        "",
    ]
    rows = []
    for name, f in r["figures"].items():
        target = ""
        if name == "validate examples":
            target = "met" if f["seconds"]["median"] < r["target_seconds"] else "**not met**"
        rows.append(
            [
                f"`{name}`",
                med(f["seconds"], 3, " s"),
                ratio(f["ratio"]),
                med(f["over_baseline_seconds"], 3, " s"),
                target,
            ]
        )
    lines += table(["command", "wall", "÷ python -c pass", "− python -c pass", "target"], rows)
    for name, output in (r.get("failures") or {}).items():
        lines += ["", f"`{name}` exited non-zero: `{output.strip().splitlines()[-1]}`"]
    return lines


def readiness(r: dict[str, Any]) -> list[str]:
    sizes = ", ".join(f"{k}: {v['bytes'] / 1024 / 1024:.1f} MiB" for k, v in r["videos"].items())
    lines = [
        "## 5. Readiness",
        "",
        f"From the PUT's answer to the first status `ready`, polled every {r['poll_ms']:g} ms; "
        f"640x360 H.264 videos ({sizes}); a fresh service per run, its first video cold. "
        f"{loads(r)}.",
        "",
    ]
    rows = []
    for name, f in r["figures"].items():
        rows.append(
            [
                name,
                med(f["ready_seconds"], 3, " s"),
                f["baseline"],
                med(f["baseline_seconds"], 3, " s"),
                ratio(f["ratio"]),
            ]
        )
    lines += table(["video", "ready after PUT", "baseline", "baseline time", "ratio"], rows)
    return lines


STARTUP_LABELS = {
    "demo_cold": "`pressroom demo`, fresh data dir and fresh Prefect home",
    "demo_warm": "`pressroom demo`, fresh data dir, the Prefect home of an earlier run "
    "(its server kept for the next runs, the default)",
    "demo_warm_not_kept": "the same with `PRESSROOM_PIPELINE_PREFECT_IDLE_SECONDS=0` "
    "(each run starts and stops its own server, as once the kept one has stopped)",
    "run_on_server": "`pressroom campaign run`, `PREFECT_API_URL` set to a running server",
    "demo_after_plain_install": "`pressroom demo`, fresh data dir and Prefect home, "
    "after a plain `pip install -e '.[all]'` (no `scripts/setup`)",
}


def startup(r: dict[str, Any]) -> list[str]:
    base = r["baseline"]
    lines = [
        "## 6. First result",
        "",
        "From a command's start to the first line saying a Prefect task run published a "
        "post; each a fresh process. In the same run, what no change of ours removes: "
        f'`python -c pass` {med(base["python -c pass"], 3, " s")}, `python -c "import '
        f'prefect"` {med(base["import prefect"], 3, " s")}.',
        "",
    ]
    rows = []
    for name, f in r["figures"].items():
        goal = f["goal_seconds"]
        if goal is None:
            verdict = "(no goal)"
        else:
            met = f["first_published"]["median"] < goal
            verdict = f"< {goal:g} s: " + ("met" if met else "**not met**")
        rows.append(
            [
                STARTUP_LABELS.get(name, name),
                med(f["first_published"], 2, " s"),
                verdict,
                med(f["process"], 2, " s"),
            ]
        )
    lines += table(["command", "first published row", "goal", "whole process"], rows)
    return lines


SECTIONS = {
    "fanout": fanout,
    "throughput": throughput,
    "uploads": uploads,
    "validation": validation,
    "readiness": readiness,
    "startup": startup,
}


def render(results: dict[str, Any]) -> str:
    lines = [
        "# pressroom benchmarks: last results",
        "",
        f"Run {results['started']} with `{results['command']}` ({results['mode']}), "
        f"{results['elapsed_seconds'] / 60:.1f} min. Figures are medians of the runs, with "
        "(min–max) beside them; ratios are taken run by run against the baseline measured "
        "in the same run, then their median reported."
        + (
            " Re-run since, each benchmark whole: " + "; ".join(results["reruns"]) + "."
            if results.get("reruns")
            else ""
        ),
        "",
        *machine(results),
    ]
    for name, render_section in SECTIONS.items():
        if name not in results["benchmarks"]:
            continue
        found = results["benchmarks"][name]
        lines.append("")
        if "error" in found:
            lines += [f"## {name}", "", f"**Not measured: it failed.** `{found['error']}`"]
            continue
        lines += render_section(found)
    return "\n".join(lines) + "\n"
