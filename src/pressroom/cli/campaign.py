"""``pressroom campaign``: validate campaign files, write their JSON Schema, show the plan.

``validate`` runs as a pre-commit hook, so this module imports only typer at the top and
``pressroom.campaign`` inside the commands; httpx only for an online ``plan``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pressroom.cli.errors import debugging, expected_errors, fail
from pressroom.cli.options import ApiKey, BaseUrl, service_address, service_key

if TYPE_CHECKING:
    from datetime import datetime

    import httpx

    from pressroom.campaign import Campaign, Issue, Plan, Skipped

app = typer.Typer(
    help="Campaign files: validate, preview, schema, plan, run.", no_args_is_help=True
)


class OutputFormat(StrEnum):
    TEXT = "text"
    GITHUB = "github"
    JSON = "json"


@app.command()
def validate(
    files: Annotated[
        list[Path],
        typer.Argument(help="Campaign files, or folders whose *.yaml / *.yml files to check."),
    ],
    strict: Annotated[bool, typer.Option(help="Fail on warnings too.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the problems as JSON.")] = False,
    output: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            help="text, or github (annotations in pull requests); json here is the older "
            "spelling of --json.",
        ),
    ] = OutputFormat.TEXT,
) -> None:
    """Check campaign files offline and report every problem as file:line:column."""
    from pressroom.campaign import validate_files

    if as_json:
        output = OutputFormat.JSON

    paths = list(_expand(files))
    reports = validate_files(paths)
    issues = [issue for report in reports for issue in report.issues]
    _print_issues(issues, output)
    errors = sum(issue.is_error for issue in issues)
    warnings = len(issues) - errors
    count = f"{len(paths)} file{'s' if len(paths) != 1 else ''}"
    sys.stdout.flush()  # the summary (stderr) comes after the issues, also when piped
    if output is not OutputFormat.JSON:
        summary = (
            f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')} in {count}"
            if issues
            else f"{count} OK"
        )
        typer.echo(summary, err=True)
    if errors or (strict and warnings) or not paths:
        raise typer.Exit(1)


@app.command()
def schema(
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")
    ] = None,
) -> None:
    """Print the JSON Schema of campaign files (committed as pipelines/campaign.schema.json)."""
    from pressroom.campaign.schema import schema_text

    text = schema_text()
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


@app.command()
def plan(
    file: Annotated[Path, typer.Argument(help="The campaign file.")],
    offline: Annotated[
        bool, typer.Option(help="Do not call the API: show each block's connection selector.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
    base_url: BaseUrl = None,
    api_key: ApiKey = None,
) -> None:
    """Show what the campaign would publish, without posting anything."""
    from pressroom.campaign import plan as make_plan
    from pressroom.campaign import validate_files

    (report,) = validate_files([file])
    if report.campaign is None:
        _print_issues(report.issues, OutputFormat.TEXT)
        typer.echo(f"{_plural(len(report.errors), 'error')}: nothing to plan", err=True)
        raise typer.Exit(1)
    campaign = report.campaign
    if offline:
        _print_offline(campaign, as_json)
        return
    connections = fetch_connections(
        service_address(base_url), service_key(api_key, offline_hint=True)
    )
    result = make_plan(campaign, connections)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        _print_plan(result)
        skips = [_skip_issue(str(file), campaign, skip) for skip in result.skipped]
        _print_issues(skips, OutputFormat.TEXT)
    if result.unresolved:
        raise typer.Exit(1)


class PreviewFormat(StrEnum):
    MARKDOWN = "markdown"
    HTML = "html"


@app.command()
def preview(
    files: Annotated[
        list[Path],
        typer.Argument(help="Campaign files, or folders whose *.yaml / *.yml files to show."),
    ],
    output_format: Annotated[
        PreviewFormat,
        typer.Option(
            "--format",
            help="markdown (a pull request's job summary: no images, at most 1 MiB) or "
            "html (with thumbnails; needs -o).",
        ),
    ] = PreviewFormat.MARKDOWN,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Write to this file, not stdout; html writes its thumbnails into "
            "<name>_files/ beside it.",
        ),
    ] = None,
    now: Annotated[
        str | None,
        typer.Option(
            help="Count the next runs from this moment (ISO 8601, e.g. "
            "2026-03-20T12:00:00+01:00; without a zone, UTC) \\[default: now]."
        ),
    ] = None,
) -> None:
    """Show every post as each network will show it, before it is merged.

    Each post's text with the spec's and the network's counts (X's weighted count and
    each network's own unit, from the rule table), its media in order, its format,
    validate's errors and warnings beside it, and the campaign's next runs in its time
    zone. Nothing is sent and no service is asked. Exits 0 once the preview is written,
    whatever it shows: `validate` is the check that fails.
    """
    from pressroom.campaign import validate_files
    from pressroom.campaign.preview import build, markdown
    from pressroom.campaign.preview import html as html_page

    if output_format is PreviewFormat.HTML and output is None:
        raise typer.BadParameter(
            "html needs -o PATH: its thumbnails are written beside it", param_hint="'--format'"
        )
    moment = _moment(now)
    paths = list(_expand(files))
    if not paths:
        fail("no campaign files to preview")
    previews = [build(report, now=moment) for report in validate_files(paths)]
    if output_format is PreviewFormat.HTML:
        assert output is not None
        html_page.write(previews, output)
        typer.echo(f"wrote {output} and {html_page.files_folder(output)}/", err=True)
        return
    text = markdown.render(previews)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


def _moment(text: str | None) -> datetime | None:
    from datetime import UTC, datetime

    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(
            f"'{text}' is not an ISO 8601 time (e.g. 2026-03-20T12:00:00+01:00)",
            param_hint="'--now'",
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@contextmanager
def http_client(base_url: str) -> Iterator[httpx.Client]:
    """The client ``plan`` calls the service with (tests put the app in process here)."""
    import httpx

    from pressroom.tls import client_context

    with httpx.Client(base_url=base_url, timeout=30.0, verify=client_context()) as client:
        yield client


def fetch_connections(base_url: str, api_key: str) -> list[dict[str, Any]]:
    """The unified connection list through ``pressroom.client``; exits with its message."""
    from pressroom.client import APIError, Client, PressroomError

    try:
        with (
            http_client(base_url) as http,
            Client(base_url=base_url, api_key=api_key, http_client=http) as client,
        ):
            entries = client.list_connections()
    except APIError as exc:
        if debugging():
            raise
        fail(f"the service answered {exc.status}: {exc.message}")
    except PressroomError as exc:
        if debugging():
            raise
        fail(f"cannot reach the service at {base_url}: {exc}")
    return [entry.model_dump(exclude_none=True) for entry in entries]


# -- output -------------------------------------------------------------------------


def _print_issues(issues: Sequence[Issue], output: OutputFormat) -> None:
    if output is OutputFormat.JSON:
        rows = [
            {
                "severity": i.severity.value,
                "file": i.file,
                "line": i.line,
                "column": i.column,
                "path": i.path,
                "message": i.message,
                **({"rule": i.rule, "docUrl": i.doc_url} if i.rule else {}),
            }
            for i in issues
        ]
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for issue in issues:
        if output is OutputFormat.GITHUB:
            typer.echo(_github_annotation(issue))
        else:
            typer.secho(str(issue), fg=typer.colors.RED if issue.is_error else typer.colors.YELLOW)


def _github_annotation(issue: Issue) -> str:
    def data(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    def prop(text: str) -> str:
        return data(text).replace(":", "%3A").replace(",", "%2C")

    return (
        f"::{issue.severity.value} file={prop(issue.file)},line={issue.line},"
        f"col={issue.column},title={prop(issue.path)}::{data(issue.full_message)}"
    )


def _print_plan(result: Plan) -> None:
    targets = len({p.connection.id for p in result.posts})
    typer.echo(
        f"campaign {result.campaign}: {_plural(len(result.posts), 'publish call')} to "
        f"{_plural(targets, 'connection')}, {_plural(len(result.uploads), 'upload')}"
    )
    _print_uploads(
        (u.name, str(u.path), u.content_type, u.size, u.sha256[:12], u.folder)
        for u in result.uploads
    )
    if result.posts:
        typer.echo("publish:")
    for post in result.posts:
        typer.echo(
            f"  {post.post_id}  {post.platform.value}  {post.connection}  POST {post.endpoint}"
            + _parts_note(post.parts, post.body, len(post.carousel))
        )
        body = dict(post.body)
        if post.media or post.carousel:
            body = post.publish_body({name: f"<file id of {name}>" for name in post.needs})
        typer.echo(f"      {json.dumps(body, ensure_ascii=False)}")
        if post.thumbnail:
            thumb = post.thumbnail
            typer.echo(
                f"      then POST {thumb.path('{videoId}')}  "
                f"{json.dumps(thumb.body({thumb.media: f'<file id of {thumb.media}>'}))}"
            )


def _print_offline(campaign: Campaign, as_json: bool) -> None:
    from pressroom.campaign.alts import sent_alts
    from pressroom.campaign.fields import takes_post_media
    from pressroom.campaign.planner import offline_body
    from pressroom.platforms import RULES

    rows: list[dict[str, Any]] = []
    for post in campaign.posts:
        for content in post.contents:
            rows.append(
                {
                    "post": post.id,
                    "platform": content.platform.value,
                    "connections": str(content.selector),
                    "endpoint": RULES[content.platform].publish_path,
                    "body": offline_body(
                        content,
                        post.media if takes_post_media(content.platform, content.fields) else None,
                        sent_alts(content, post.media, campaign.media),
                    ),
                    "parts": content.parts,
                    "thumbnail": content.thumbnail,
                }
            )
    if as_json:
        typer.echo(
            json.dumps({"campaign": campaign.name, "posts": rows}, indent=2, ensure_ascii=False)
        )
        return
    used = {row["thumbnail"] for row in rows} | {p.media for p in campaign.posts}
    used |= {name for p in campaign.posts for content in p.contents for name in content.carousel}
    uploads = [m for name, m in campaign.media.items() if name in used]
    typer.echo(
        f"campaign {campaign.name} (offline): {_plural(len(rows), 'post block')}, "
        f"{_plural(len(uploads), 'upload')}"
    )
    _print_uploads(
        (m.name, m.written_path, m.content_type, m.size, None, m.folder) for m in uploads
    )
    typer.echo("publish:")
    for row in rows:
        typer.echo(
            f"  {row['post']}  {row['platform']}  to {row['connections']}  POST {row['endpoint']}"
            + _parts_note(row["parts"], row["body"], len(row["body"].get("fileIds") or ()))
        )
        typer.echo(f"      {json.dumps(row['body'], ensure_ascii=False)}")
        if row["thumbnail"]:
            typer.echo(f"      then set thumbnail '{row['thumbnail']}' on the new video")


def _parts_note(parts: int, body: Mapping[str, Any], items: int) -> str:
    """What a publish call makes, after it: ``  (a thread of 3 parts)``, ``  (a post and
    its first comment, 2 parts)``, ``  (a carousel of 3 items, 4 parts)``; nothing for
    a post of one part."""
    posts = 1 + len(body.get("thread") or ())
    first_comment = "firstComment" in body
    if posts == 1 and not items and not first_comment:
        return ""
    made = f"a thread of {posts} parts" if posts > 1 else "a post"
    if items:
        carousel = f"a carousel of {items} items"
        made = f"{made}, the first {carousel}" if posts > 1 else carousel
    if first_comment:
        made += " and its first comment"
    elif posts > 1 and not items:
        return f"  ({made})"
    return f"  ({made}, {_plural(parts, 'part')})"


def _print_uploads(rows: Iterable[tuple[str, str, str, int, str | None, str | None]]) -> None:
    rows = list(rows)
    if rows:
        typer.echo("upload:")
    for name, path, content_type, size, digest, folder in rows:
        extra = f"  sha256 {digest}" if digest else ""
        extra += f"  folder {folder}" if folder else ""
        typer.echo(f"  {name}  {path}  {content_type}  {_size(size)}{extra}")


def _skip_issue(file: str, campaign: Campaign, skip: Skipped) -> Issue:
    from pressroom.campaign import Issue, Severity, SkipReason
    from pressroom.campaign.issues import dotted

    mark = campaign.source.key(skip.path)  # the block, `connections:` or the list entry
    severity = Severity.ERROR if skip.reason is SkipReason.NOT_FOUND else Severity.WARNING
    message = f"post '{skip.post_id}' skips {skip.platform.value}: {skip.message}"
    return Issue(file, mark.line, mark.column, dotted(skip.path), message, severity)


def _expand(files: Iterable[Path]) -> Iterable[Path]:
    for path in files:
        if path.is_dir():
            yield from sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
        else:
            yield path


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _size(size: int) -> str:
    return f"{size / 1024:.1f} KB" if size < 1024 * 1024 else f"{size / 1024 / 1024:.1f} MB"


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="The campaign file.")],
    edition: Annotated[
        str | None,
        typer.Option(help="Which edition this run is (default: manual). A new edition posts anew."),
    ] = None,
    dry_run: Annotated[bool, typer.Option(help="Plan and report; post nothing.")] = False,
    base_url: BaseUrl = None,
    api_key: ApiKey = None,
) -> None:
    """Run the campaign through Prefect (ephemeral, or the server at PREFECT_API_URL).

    The file is validated and planned first, so a mistake, a wrong key or an unreachable
    service is reported at once, before Prefect is imported or the run is prepared. Every
    post goes out exactly once per edition: run it again and what was published is
    skipped. Exits 1 if any post failed, is unconfirmed or is partial (a thread cut short:
    the next run resumes it).
    """
    address, key = service_address(base_url), service_key(api_key)
    from pressroom.pipeline import prefect_api

    # A temporary server of our own (when no other will serve the run) starts now, in a
    # process of its own beside the checks, importing Prefect and loading the flow: it is
    # the slowest of them. A run the checks stop never uses it: at exit it stops, or, when
    # kept for the next runs (pressroom.pipeline.prefect_keep), it waits for the next.
    with expected_errors():
        prefect_api.start_early()
    preflight(file, address, key)
    from pressroom.pipeline.runner import (
        kept_server_note,
        prepare_prefect,
        run_campaign_file,
        ui_hint,
    )

    prepare_prefect()
    with expected_errors(), progress_bars():
        outcome = run_campaign_file(file, edition=edition, dry_run=dry_run)
    typer.echo(f"{outcome.state.lower()}: {outcome.message}")
    typer.echo(f"see it in the Prefect UI: {ui_hint(outcome.flow_run_id, outcome.api_url)}")
    if outcome.server_kept:
        typer.echo(kept_server_note())
    if not outcome.ok:
        raise typer.Exit(1)


def preflight(file: Path, base_url: str, api_key: str) -> Plan:
    """Validate and plan without Prefect: what ``plan`` checks, in a second or two.

    The flow's client reads the address and key from the environment, so they are set
    there for it (the key is never a flow parameter: parameters show in the UI).
    """
    from pressroom.campaign import plan as make_plan
    from pressroom.campaign import validate_files

    if not file.is_file():
        fail(f"{file}: no such file")
    (report,) = validate_files([file])
    if report.campaign is None:
        _print_issues(report.issues, OutputFormat.TEXT)
        fail(f"{_plural(len(report.errors), 'error')} in {file}: nothing was run")
    os.environ["PRESSROOM_BASE_URL"] = base_url
    os.environ["PRESSROOM_API_KEY"] = api_key
    return make_plan(report.campaign, fetch_connections(base_url, api_key))


@app.command()
def deployments(
    pipelines: Annotated[
        Path | None, typer.Option(help=r"Folder of campaign files \[default: ./pipelines].")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write to this file, not stdout.")
    ] = None,
) -> None:
    """Write prefect.yaml: a deployment per scheduled campaign, on a process work pool."""
    from pressroom.pipeline.deployments import prefect_yaml, scheduled_campaigns
    from pressroom.pipeline.runner import project_root

    root = project_root()
    campaigns, left_out = scheduled_campaigns((pipelines or root / "pipelines").resolve())
    for line in left_out:
        typer.echo(f"left out: {line}", err=True)
    text = prefect_yaml(campaigns, root)
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text)


@contextmanager
def progress_bars() -> Iterator[None]:
    """Bars for uploads, readiness and posts while the flow runs in this process."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from pressroom.pipeline import progress
    from pressroom.pipeline.progress import Stage

    bars = Progress(
        TextColumn("{task.description:>8}"), BarColumn(), MofNCompleteColumn(), transient=False
    )
    ids = {stage: bars.add_task(stage.value, total=None, visible=False) for stage in Stage}

    class Bars:
        def planned(self, stage: Stage, total: int) -> None:
            bars.update(ids[stage], total=total, visible=total > 0)

        def advanced(self, stage: Stage) -> None:
            bars.advance(ids[stage])

        def notice(self, text: str) -> None:
            bars.console.print(text)

    progress.listen(Bars())
    try:
        with bars:
            yield
    finally:
        progress.listen(None)
