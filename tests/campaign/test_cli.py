"""``pressroom campaign`` as editors and CI run it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from pressroom.cli import campaign as campaign_cli
from pressroom.cli.main import app
from tests.campaign.conftest import Write
from tests.campaign.test_schema import COMMITTED, PIPELINES
from tests.conftest import Service

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["campaign", *args])
    return result.exit_code, result.stdout, result.stderr


BROKEN = """
name: broken
posts:
  - id: a
    microblog: {text: hi, colour: red}
"""
ADVICE = """
name: advice
media: {square: {path: media/small.png}}
posts:
  - id: a
    media: square
    pin_board: {board: b}
"""


def test_validate_prints_each_issue_and_exits_1_on_errors(write: Write) -> None:
    write(BROKEN)
    code, out, err = run("validate", "c.yaml")
    assert code == 1
    assert out.splitlines() == [
        "error: c.yaml:4:27: posts.0.microblog.colour: unknown key 'colour'; expected one of: connections, text, thread"
    ]
    assert err.strip() == "1 error, 0 warnings in 1 file"


def test_warnings_pass_unless_strict(write: Write) -> None:
    write(ADVICE)
    code, out, err = run("validate", "c.yaml")
    assert code == 0 and out.startswith("warning: c.yaml:6:5: posts.0.pin_board: recommended")
    assert err.strip() == "0 errors, 1 warning in 1 file"
    assert run("validate", "--strict", "c.yaml")[0] == 1


def test_validate_checks_a_folder_and_says_ok(campaign_dir: Path) -> None:
    folder = campaign_dir / "pipelines"
    shutil.copytree(PIPELINES, folder, ignore=shutil.ignore_patterns("ci"))
    code, out, err = run("validate", str(folder))
    assert (code, out) == (0, "")
    assert err.strip() == f"{len(list(folder.glob('*.yaml')))} files OK"


def test_validate_without_files_fails(campaign_dir: Path) -> None:
    (campaign_dir / "empty").mkdir()
    code, _, err = run("validate", "empty")
    assert code == 1 and err.strip() == "0 files OK"


def test_github_format_makes_pull_request_annotations(write: Write) -> None:
    write(BROKEN)
    _, out, _ = run("validate", "--format", "github", "c.yaml")
    assert out.splitlines() == [
        "::error file=c.yaml,line=4,col=27,title=posts.0.microblog.colour::unknown key 'colour'; "
        "expected one of: connections, text, thread"
    ]


def test_json_format_is_machine_readable(write: Write) -> None:
    write(ADVICE)
    code, out, _ = run("validate", "--format", "json", "c.yaml")
    [issue] = json.loads(out)
    assert code == 0
    assert issue["severity"] == "warning" and (issue["line"], issue["column"]) == (6, 5)
    assert issue["path"] == "posts.0.pin_board"


def test_a_network_rule_is_named_in_every_format(write: Write) -> None:
    write(
        """
        name: cjk
        posts:
          - id: p
            microblog:
              text: "%s"
        """
        % ("中" * 141)
    )
    code, out, _ = run("validate", "--format", "json", "c.yaml")
    [issue] = json.loads(out)
    assert code == 1 and (issue["line"], issue["path"]) == (5, "posts.0.microblog.text")
    assert issue["rule"] == "microblog.weighted_length"
    assert issue["docUrl"] == "https://docs.x.com/fundamentals/counting-characters"
    assert "282 weighted characters" in issue["message"]
    code, out, _ = run("validate", "--format", "github", "c.yaml")
    assert "[microblog.weighted_length: https://docs.x.com/fundamentals/counting-characters]" in out
    code, out, _ = run("validate", "c.yaml")
    assert out.startswith("error: c.yaml:5:13: posts.0.microblog.text: X would refuse it: ")


def test_schema_prints_the_committed_schema(tmp_path: Path) -> None:
    code, out, _ = run("schema")
    assert code == 0 and out == COMMITTED.read_text(encoding="utf-8")
    target = tmp_path / "schema.json"
    assert run("schema", "-o", str(target))[0] == 0
    assert target.read_text(encoding="utf-8") == out


def test_plan_offline_shows_selectors_and_bodies() -> None:
    code, out, _ = run("plan", "--offline", str(PIPELINES / "spring-launch.yaml"))
    assert code == 0
    assert out.splitlines()[0] == "campaign spring-launch (offline): 10 post blocks, 4 uploads"
    assert (
        "  launch-announcement  microblog  to name '@acme'  POST /api/v2/microblog/publish" in out
    )
    assert (
        "  launch-film  page_social  to name 'Acme Page'  POST /api/v2/page_social/publish" in out
    )
    assert "  vertical-cut  short_video  to every active connection  POST /api/social/post" in out
    assert "      then set thumbnail 'cover' on the new video" in out
    assert (
        '{"connectionId": "<connection id>", "fileId": "<file id of poster>", '
        '"boardId": "spring-ideas", "title": "Acme spring poster", '
        '"description": "Colours of the season."}'
    ) in out


def test_plan_offline_json() -> None:
    code, out, _ = run("plan", "--offline", "--json", str(PIPELINES / "demo.yaml"))
    data = json.loads(out)
    assert code == 0 and data["campaign"] == "demo"
    assert {row["platform"] for row in data["posts"]} == {
        "microblog",
        "video_sharing",
        "short_video",
        "photo_sharing",
        "page_social",
        "pin_board",
        "text_thread",
        "professional_network",
    }


THREAD = """
name: thread
posts:
  - id: story
    microblog:
      text: one
      thread: [two, three]
    professional_network: {text: one}
"""


def test_plan_shows_a_threads_parts_count(write: Write) -> None:
    write(THREAD)
    code, out, _ = run("plan", "--offline", "c.yaml")
    assert code == 0
    lines = out.splitlines()
    assert (
        "  story  microblog  to every active connection  POST /api/v2/microblog/publish  (a thread of 3 parts)"
        in lines
    )
    assert (
        "  story  professional_network  to every active connection  POST /api/v2/professional_network/publish"
        in lines
    )
    assert (
        '      {"connectionId": "<connection id>", "text": "one", "thread": [{"text": "two"}, '
        '{"text": "three"}]}'
    ) in lines
    code, out, _ = run("plan", "--offline", "--json", "c.yaml")
    assert [row["parts"] for row in json.loads(out)["posts"]] == [3, 1]


def test_plan_against_the_api_shows_a_threads_parts_count(
    in_process: Service, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = in_process.account()
    account.connect("microblog", "@acme")
    monkeypatch.setenv("PRESSROOM_API_KEY", account.key)
    write(THREAD)
    code, out, _ = run("plan", "c.yaml")
    assert code == 0
    assert "  story  microblog  @acme" in out and out.count("(a thread of 3 parts)") == 1
    code, out, _ = run("plan", "--json", "c.yaml")
    assert [(p["platform"], p["parts"]) for p in json.loads(out)["posts"]] == [("microblog", 3)]


def test_plan_refuses_an_invalid_campaign(write: Write) -> None:
    write(BROKEN)
    code, out, err = run("plan", "--offline", "c.yaml")
    assert code == 1 and out.startswith("error: c.yaml:4:27:")
    assert err.strip() == "1 error: nothing to plan"


@pytest.fixture
def in_process(service: Service, monkeypatch: pytest.MonkeyPatch) -> Service:
    """``plan`` talks to the real app, in process."""

    @contextmanager
    def client(base_url: str) -> Iterator[httpx.Client]:
        assert base_url == "http://pressroom.test"
        yield service.client

    monkeypatch.setattr(campaign_cli, "http_client", client)
    monkeypatch.setenv("PRESSROOM_BASE_URL", "http://pressroom.test")
    return service


def test_plan_resolves_connections_through_the_api(
    in_process: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = in_process.account()
    account.connect("microblog", "@acme")
    support = account.connect("microblog", "@acme_support")
    account.connect("video_sharing", "Acme Channel", verified=True)
    account.connect("short_video", "@acme.clips")
    account.connect("photo_sharing", "acme.photos", account_type="business")
    account.connect("page_social", "Acme Page")
    account.connect("pin_board", "acme-pins")
    pro = account.connect("professional_network", "Acme Inc.")
    account.move("expire_token", pro)
    monkeypatch.setenv("PRESSROOM_API_KEY", account.key)

    code, out, _ = run("plan", "--json", str(PIPELINES / "demo.yaml"))
    assert code == 0
    data = json.loads(out)
    assert [(p["post"], p["platform"], p["connection"]["name"]) for p in data["posts"]] == [
        ("hello", "microblog", "@acme"),
        ("hello", "microblog", "@acme_support"),
        ("hello", "text_thread", "acme.photos"),
        ("teaser", "short_video", "@acme.clips"),
        ("teaser", "video_sharing", "Acme Channel"),
        ("teaser", "page_social", "Acme Page"),
        ("teaser", "photo_sharing", "acme.photos"),
        ("poster", "pin_board", "acme-pins"),
    ]
    assert data["posts"][1]["body"]["connectionId"] == support
    assert [(s["platform"], s["reason"]) for s in data["skipped"]] == [
        ("professional_network", "inactive")
    ]
    assert [u["name"] for u in data["uploads"]] == ["teaser", "cover", "poster"]

    code, out, _ = run("plan", str(PIPELINES / "demo.yaml"))
    assert code == 0
    assert out.splitlines()[0] == "campaign demo: 8 publish calls to 8 connections, 3 uploads"
    demo = PIPELINES / "demo.yaml"
    assert (
        f"warning: {demo}:30:5: posts.0.professional_network: post 'hello' skips "
        "professional_network: Acme Inc. (" + pro + ") is inactive: reconnect it in the dashboard"
    ) in out


def test_plan_fails_on_a_name_the_account_does_not_have(
    in_process: Service, write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = in_process.account()
    account.connect("microblog", "@acme")
    monkeypatch.setenv("PRESSROOM_API_KEY", account.key)
    write(
        "name: n\nposts:\n  - id: a\n    microblog: {text: hi, connections: ['@acme', '@acne2']}\n"
    )
    code, out, _ = run("plan", "c.yaml")
    assert code == 1
    assert out.splitlines()[-1] == (
        "error: c.yaml:4:50: posts.0.microblog.connections.1: post 'a' skips microblog: "
        "no microblog connection with name '@acne2'; did you mean '@acme'?"
    )


def test_plan_reports_a_refused_key_and_a_missing_one(in_process: Service, write: Write) -> None:
    write("name: n\nposts: [{id: a, microblog: {text: hi}}]\n")
    code, _, err = run("plan", "--api-key", "prk_live_wrong", "c.yaml")
    assert code == 1
    assert err.startswith("error: the service answered 401: ")
    code, _, err = run("plan", "c.yaml")
    assert code == 2 and "PRESSROOM_API_KEY" in err  # no key: a usage error


@pytest.fixture
def no_prefect(monkeypatch: pytest.MonkeyPatch) -> None:
    """`campaign run` must settle expected errors before Prefect starts."""
    from pressroom.pipeline import runner as pipeline_runner

    def started(*args: object, **kwargs: object) -> None:
        raise AssertionError("Prefect was started")

    monkeypatch.setattr(pipeline_runner, "prepare_prefect", started)
    monkeypatch.setattr(pipeline_runner, "run_campaign_file", started)


def test_run_reports_an_invalid_campaign_before_prefect_without_a_traceback(
    write: Write, no_prefect: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRESSROOM_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PRESSROOM_API_KEY", "prk_live_any")
    write(BROKEN)
    result = runner.invoke(app, ["campaign", "run", "c.yaml"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.stdout.startswith("error: c.yaml:4:27:")
    assert result.stderr.strip() == "error: 1 error in c.yaml: nothing was run"
    assert "Traceback" not in result.output


def test_run_reports_a_wrong_key_in_one_line_before_prefect(
    in_process: Service, write: Write, no_prefect: None
) -> None:
    write("name: n\nposts: [{id: a, microblog: {text: hi}}]\n")
    code, out, err = run("run", "--api-key", "prk_live_wrong", "c.yaml")
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: the service answered 401: ")


def test_run_reports_an_unreachable_service_and_debug_shows_the_traceback(
    write: Write, no_prefect: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pressroom.client import PressroomError
    from pressroom.pipeline.serving import free_port

    monkeypatch.setenv("PRESSROOM_API_KEY", "prk_live_any")
    write("name: n\nposts: [{id: a, microblog: {text: hi}}]\n")
    closed = f"http://127.0.0.1:{free_port()}"
    code, _, err = run("run", "--base-url", closed, "c.yaml")
    assert code == 1
    assert len(err.splitlines()) == 1 and err.startswith(
        f"error: cannot reach the service at {closed}"
    )

    result = runner.invoke(app, ["--debug", "campaign", "run", "--base-url", closed, "c.yaml"])
    assert isinstance(result.exception, PressroomError)


def test_every_command_has_one_rule_for_the_service_address(
    write: Write, no_prefect: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PRESSROOM_BASE_URL", raising=False)
    monkeypatch.setenv("PRESSROOM_API_KEY", "prk_live_any")
    write("name: n\nposts: [{id: a, microblog: {text: hi}}]\n")
    answers = {command: run(command, "c.yaml") for command in ("plan", "run")}
    for command, (code, out, err) in answers.items():
        assert code == 2 and out == "", command  # a usage error, not a failed run
        assert err.strip() == (
            "error: no service address: pass --base-url or set PRESSROOM_BASE_URL "
            "(e.g. http://127.0.0.1:8000)"
        ), command


@pytest.mark.parametrize(
    ("command", "default"), [("serve", "./pipelines"), ("demo", "pipelines/demo.yaml")]
)
def test_help_shows_the_defaults(command: str, default: str) -> None:
    result = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0
    assert f"[default: {default}]" in result.stdout
