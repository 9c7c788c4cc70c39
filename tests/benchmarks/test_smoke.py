"""The benchmarks still run: every one in its tiny configuration, with its report fields.

This is a smoke run, not a measurement: it asserts what each benchmark produces (the
figures, their baselines and ratios, the rendered sections), never how fast anything
was. The real runs (``benchmarks/run_all.py``) stay out of CI.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import report, run_all, throughput


def test_every_benchmark_runs_in_its_smoke_configuration_and_reports(tmp_path: Path) -> None:
    results = run_all.run(list(run_all.BENCHMARKS), "smoke", tmp_path / "work", log=lambda _: None)
    results["command"] = "python benchmarks/run_all.py --smoke"
    found = results["benchmarks"]
    assert {name: r["error"] for name, r in found.items() if "error" in r} == {}

    fanout = found["fanout"]
    ephemeral = fanout["modes"]["ephemeral, one process"]
    assert ephemeral["published"] == [fanout["requests"]] == [8]
    for figure in ("startup_seconds", "flow_seconds", "script_seconds", "ratio"):
        assert ephemeral[figure]["runs"] == 1 and ephemeral[figure]["median"] > 0
    assert ephemeral["overhead_cpu_ms_per_task"]["runs"] == 1
    whole = fanout["whole_process"]
    assert whole["ratio"]["runs"] == 1 and whole["goal_ratio"] == 1.5
    assert whole["flow_process_seconds"]["median"] > whole["script_process_seconds"]["median"] > 0

    sqlite = found["throughput"]["databases"]["SQLite"]
    assert sqlite["listed_connections"] == 8
    for endpoint in throughput.ENDPOINTS:
        figures = sqlite["figures"]["httpx"][endpoint.name]
        assert figures["rps"]["median"] > 0, endpoint.name
        assert figures["rps_ratio"]["median"] > 0, endpoint.name
        assert figures["p99_ms"]["median"] >= figures["p50_ms"]["median"], endpoint.name
        assert all(set(s) == {"200"} for s in figures["statuses"]), figures["statuses"]
        if endpoint.is_baseline:
            assert figures["rps_ratio"]["median"] == 1.0
        assert figures["goal"] == endpoint.goal and (figures["met"] is None) == (
            endpoint.goal is None
        )
    goals = {e.name: e.goal for e in throughput.ENDPOINTS if e.goal is not None}
    assert goals == {throughput.UNIFIED: 0.40, throughput.PUBLISH: 0.20}

    upload = found["uploads"]["sizes"]["8"]
    assert upload["same_bytes"] is True
    assert upload["put_mib_s"]["median"] > 0 and upload["copy_mib_s"]["median"] > 0
    assert upload["growth_mib"]["runs"] == 1 and upload["idle_rss_mib"]["median"] > 0

    validation = found["validation"]
    assert validation["failures"] == {}
    assert set(validation["figures"]) == {
        "python -c pass",
        "validate examples",
        "validate 20 posts",
    }

    readiness = found["readiness"]["figures"]
    assert set(readiness) == {"cold 4 s", "warm 4 s"}
    assert all(
        f["ready_seconds"]["median"] > 0 and f["ratio"]["runs"] == 1 for f in readiness.values()
    )

    startup = found["startup"]["figures"]
    assert {name: f["goal_seconds"] for name, f in startup.items()} == {
        "demo_cold": 10.0,
        "demo_warm": 5.0,
        "run_on_server": 3.0,
    }
    for f in startup.values():
        assert 0 < f["first_published"]["median"] < f["process"]["median"]

    markdown = report.render(results)
    for heading in (
        "## Machine",
        "## 1. Campaign fan-out",
        "## 2. API throughput",
        "## 3. Uploads and downloads",
        "## 4. Validation",
        "## 5. Readiness",
        "## 6. First result",
    ):
        assert heading in markdown
    assert "flow ÷ script" in markdown and "÷ baseline" in markdown
    assert "Whole process, what a user waits for" in markdown
