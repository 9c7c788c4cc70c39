"""The fan-out measured: the ``run-campaign`` flow in this process, several runs in a row,
each paired with the plain script (``fanout_baseline.py``, its own process) on the same
service.

Run by ``fanout.py`` as a fresh process (``python benchmarks/fanout_flow.py CONFIG OUT``)
with ``PREFECT_HOME`` set, and ``PREFECT_API_URL`` set for a real server or unset for
Prefect's ephemeral mode. Times, separately: importing Prefect, Prefect's start-up (the
first API call, which starts the ephemeral server), loading the flow, each flow run
(the flow call alone, its results table held and printed after it as `pressroom campaign
run` does), and draining its events afterwards. Before each flow run the campaign is
validated and planned against the service, untimed, as `campaign run` does before every
run (``pressroom.cli.campaign.preflight``): the flow's own load and plan then run as warm
as they do in the command, where the first run of a process would otherwise pay for
them alone. CPU seconds are read for
this process, its children (the ephemeral server), the service and a real server, so
the orchestration's cost per task can be stated in CPU milliseconds, not only in wall
time.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import PYTHON, ROOT, cpu_seconds, descendants
from benchmarks.profiles import record_argv, summarise


def request_script(script: str, config: dict[str, Any], edition: str) -> list[str]:
    """The command line of a script making the campaign's requests for ``edition``
    (``fanout_baseline.py``, ``fanout_plain_prefect.py``), under the run's caps."""
    return [
        PYTHON,
        str(ROOT / "benchmarks" / script),
        "--campaign",
        config["campaign"],
        "--edition",
        edition,
        "--file-ids",
        json.dumps(config["file_ids"]),
        "--concurrency",
        str(config["concurrency"]),
        "--platform-concurrency",
        str(config["platform_concurrency"]),
    ]


def baseline(
    config: dict[str, Any], edition: str, order: str, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """One run of the plain script in its own process (in ``env``, else this process's
    environment); the service's CPU around it."""
    service_cpu = cpu_seconds(config["service_pid"])
    out = subprocess.run(
        [*request_script("fanout_baseline.py", config, edition), "--order", order],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=env,
    )
    if out.returncode != 0:
        raise RuntimeError(f"the baseline script failed: {out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result["service_cpu_seconds"] = cpu_seconds(config["service_pid"]) - service_cpu
    result["edition"] = edition
    return result


class Profiler:
    """py-spy on some processes while one flow run goes on (when py-spy is installed)."""

    def __init__(self, pids: dict[str, int], folder: Path) -> None:
        self.running: list[tuple[str, Path, subprocess.Popen[bytes]]] = []
        spy = Path(PYTHON).parent / "py-spy"
        if not spy.exists():
            return
        folder.mkdir(parents=True, exist_ok=True)
        for name, pid in pids.items():
            path = folder / f"{name}.txt"
            process = subprocess.Popen(
                # --gil: only the thread holding the interpreter lock, i.e. where the
                # CPU goes; without it the flow process's sixteen threads show wherever
                # they wait for the lock (after each system call), not what they run.
                record_argv(spy, pid, path, "--gil"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.running.append((name, path, process))
        time.sleep(1.0)  # py-spy attaches

    def stop(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for name, path, process in self.running:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
            if path.exists():
                found[name] = summarise(path)
        return found


def main(config_file: str, out_file: str) -> None:
    config: dict[str, Any] = json.loads(Path(config_file).read_text())
    result: dict[str, Any] = {"mode": config["mode"], "runs": []}
    started = time.perf_counter()

    from pressroom.cli.campaign import preflight
    from pressroom.pipeline import outcomes
    from pressroom.pipeline.runner import ENTRYPOINT, prepare_prefect, project_root
    from pressroom.pipeline.sealed import unsealed

    prepare_prefect()
    from prefect.client.orchestration import get_client
    from prefect.events.worker import EventsWorker
    from prefect.flows import load_flow_from_entrypoint
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    result["import_seconds"] = time.perf_counter() - started

    mark = time.perf_counter()
    with get_client(sync_client=True) as client:
        client.hello()
    result["startup_seconds"] = time.perf_counter() - mark
    ephemeral_pids = [pid for pid in descendants(os.getpid())]
    result["ephemeral_server_pids"] = ephemeral_pids

    mark = time.perf_counter()
    flow: Any = load_flow_from_entrypoint(str(project_root() / ENTRYPOINT))
    result["load_flow_seconds"] = time.perf_counter() - mark

    server_pid: int | None = config.get("server_pid")
    # The service's address and key, as `campaign run` is given them (the runner's env).
    address, key = os.environ["PRESSROOM_BASE_URL"], os.environ["PRESSROOM_API_KEY"]

    def prefect_server_cpu() -> float:
        if server_pid:
            return cpu_seconds(server_pid, tree=True)
        return sum(cpu_seconds(pid, tree=True) for pid in ephemeral_pids)

    def run_flow(edition: str) -> dict[str, Any]:
        preflight(Path(config["campaign"]), address, key)
        gc.freeze()  # as the runner does before the flow
        cpu_self = time.process_time()
        cpu_server = prefect_server_cpu()
        cpu_service = cpu_seconds(config["service_pid"])
        mark = time.perf_counter()
        # As `pressroom campaign run` runs it (pressroom.pipeline.runner): the results
        # table held by the caller and printed once the run has ended, not by the flow.
        with (
            temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}),
            outcomes.tables_held() as tables,
        ):
            state = flow(campaign_file=config["campaign"], edition=edition, return_state=True)
        wall = time.perf_counter() - mark
        cpu_flow = time.process_time() - cpu_self
        for title, table in tables:
            outcomes.print_table(title, table)
        mark = time.perf_counter()
        EventsWorker.drain_all(timeout=10)
        drain = time.perf_counter() - mark
        data = unsealed(state.result(raise_on_failure=False))
        rows = data if isinstance(data, list) else []
        return {
            "edition": edition,
            "wall_seconds": wall,
            "drain_seconds": drain,
            "state": state.type.value,
            "statuses": dict(Counter(str(r.get("status")) for r in rows if isinstance(r, dict))),
            "cpu_seconds": cpu_flow,
            "prefect_server_cpu_seconds": prefect_server_cpu() - cpu_server,
            "service_cpu_seconds": cpu_seconds(config["service_pid"]) - cpu_service,
        }

    prefix = config["edition_prefix"]
    for index in range(config["runs"]):
        edition = f"{prefix}-{index}"
        pair: dict[str, Any] = {}
        steps = ["baseline", "flow"] if index % 2 == 0 else ["flow", "baseline"]
        for step in steps:
            if step == "flow":
                pair["flow"] = run_flow(edition + "-flow")
            else:
                pair["baseline"] = baseline(config, edition + "-script", "platform-first")
                if config.get("global_first"):
                    pair["baseline_global_first"] = baseline(
                        config, edition + "-script-gf", "global-first"
                    )
                    pair["baseline_interleaved"] = baseline(
                        config, edition + "-script-gfi", "global-first-interleaved"
                    )
        result["runs"].append(pair)

    if config.get("task_overhead_runs"):
        from benchmarks.task_overhead import measure

        result["task_overhead"] = measure(
            config["requests"], config["task_overhead_runs"], prefect_server_cpu
        )

    if config.get("profile_dir"):
        pids = {"flow-process": os.getpid(), "service": config["service_pid"]}
        if server_pid:
            pids["prefect-server"] = server_pid
        elif ephemeral_pids:
            pids["prefect-server"] = ephemeral_pids[0]
        profiler = Profiler(pids, Path(config["profile_dir"]))
        profiled = run_flow(f"{prefix}-profiled")
        profiled["profiles"] = profiler.stop()
        result["profiled_run"] = profiled

    result["process_seconds"] = time.perf_counter() - started
    Path(out_file).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
