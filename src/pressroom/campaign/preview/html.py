"""The preview as one HTML page, its thumbnails as files beside it.

``write(previews, out)`` writes ``out`` and the folder ``<out's name>_files/`` with a
JPEG per media file, referenced by relative links: the folder and the page go together
(a workflow uploads both as one artifact). Every text from a campaign is escaped, so a
post whose text holds ``<script>`` shows it as text. Built with the standard library
alone: ``pressroom[media]`` is all the preview needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import quote

from pressroom.campaign.issues import Issue
from pressroom.campaign.preview import thumbnails
from pressroom.campaign.preview.model import (
    BlockPreview,
    CampaignPreview,
    Count,
    MediaPreview,
    Part,
    PartKind,
    PostPreview,
    TextPreview,
    shown_time,
)

STYLE = """
body { font: 16px/1.5 system-ui, sans-serif; color: #1b1b1b; margin: 0 auto; max-width: 60rem;
  padding: 1rem; }
h1, h2, h3, h4, h5 { line-height: 1.25; }
h2 { border-bottom: 2px solid #1b1b1b; padding-bottom: .25rem; margin-top: 2.5rem; }
.file, .network-label { color: #4a4a4a; font-weight: normal; font-size: .8em; }
.post { border-top: 1px solid #b0b0b0; margin-top: 1.5rem; }
.block { border: 1px solid #b0b0b0; border-radius: 6px; padding: .75rem 1rem; margin: 1rem 0; }
.settings { display: grid; grid-template-columns: max-content 1fr; gap: 0 1rem; margin: 0; }
.settings dt { font-weight: 600; }
.settings dd { margin: 0; }
.media { list-style: none; display: flex; flex-wrap: wrap; gap: .75rem; padding: 0; }
.media figure { margin: 0; max-width: 200px; }
.media img { display: block; max-width: 200px; height: auto; border: 1px solid #b0b0b0; }
.media figcaption { font-size: .85em; }
.field { font-weight: 600; margin-bottom: 0; }
.body { white-space: pre-wrap; overflow-wrap: anywhere; background: #f4f4f4;
  padding: .5rem .75rem; border-radius: 4px; margin-top: .25rem; }
.more { font-weight: 600; }
.behind { color: #4a4a4a; }
.counts { padding-left: 1.25rem; }
.over { color: #a4001d; font-weight: 600; }
.issues { padding-left: 1.25rem; }
.issue-error { color: #a4001d; }
.issue-warning { color: #6b4100; }
a { color: #0b4fa8; }
"""


@dataclass(frozen=True)
class Picture:
    """A thumbnail written beside the page: its link from the page, and its size."""

    src: str
    width: int
    height: int


def files_folder(out: Path) -> Path:
    """Where the thumbnails of the page ``out`` go: ``preview.html`` → ``preview_files``."""
    return out.with_name(f"{out.stem}_files")


def write(previews: Sequence[CampaignPreview], out: Path) -> Path:
    """Write the page and its thumbnails; the page's path."""
    folder = files_folder(out)
    pictures: dict[Path, Picture] = {}
    for preview in previews:
        for item in preview.media:
            if item.media.path in pictures:
                continue
            made = thumbnails.write(item.media, folder)
            if made is not None:
                name, width, height = made
                pictures[item.media.path] = Picture(
                    f"{quote(folder.name)}/{quote(name)}", width, height
                )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(previews, pictures), encoding="utf-8")
    return out


def render(previews: Sequence[CampaignPreview], pictures: Mapping[Path, Picture]) -> str:
    posts = sum(len(p.posts) for p in previews)
    errors = sum(p.errors for p in previews)
    warnings = sum(p.warnings for p in previews)
    page = _Page(pictures)
    body = "".join(page.campaign(index, preview) for index, preview in enumerate(previews))
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>Campaign preview</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
        "<h1>Campaign preview</h1>\n"
        f"<p>{_plural(len(previews), 'campaign')}, {_plural(posts, 'post')}; "
        f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}. Each post as its "
        "network will show it; nothing was sent.</p>\n"
        f"{body}</main>\n</body>\n</html>\n"
    )


class _Page:
    def __init__(self, pictures: Mapping[Path, Picture]) -> None:
        self.pictures = pictures

    def campaign(self, index: int, preview: CampaignPreview) -> str:
        anchor = f"campaign-{index}"
        parts = [
            f'<section class="campaign" aria-labelledby="{anchor}">\n'
            f'<h2 id="{anchor}">{_e(preview.name)} <span class="file">{_e(preview.file)}</span></h2>\n'
        ]
        if not preview.readable:
            parts.append("<p>This file could not be read as a campaign.</p>\n")
        if preview.description:
            parts.append(f'<p class="description">{_e(preview.description)}</p>\n')
        if preview.cron and preview.timezone:
            runs = "".join(
                f'<li><time datetime="{run.isoformat()}">{_e(shown_time(run))}</time></li>'
                for run in preview.next_runs
            )
            parts.append(
                f"<p>Next runs (<code>{_e(preview.cron)}</code> in {_e(preview.timezone)}):</p>\n"
                f'<ul class="runs">{runs or "<li>none</li>"}</ul>\n'
            )
        elif preview.readable:
            parts.append("<p>No schedule: the campaign runs only when it is started.</p>\n")
        parts.append(_issues(preview.issues))
        for number, post in enumerate(preview.posts):
            parts.append(self.post(f"{anchor}-post-{number}", post))
        parts.append("</section>\n")
        return "".join(parts)

    def post(self, anchor: str, post: PostPreview) -> str:
        blocks = "".join(
            self.block(f"{anchor}-{block.platform.value}", block) for block in post.blocks
        )
        return (
            f'<section class="post" data-post="{_e(post.id)}" aria-labelledby="{anchor}">\n'
            f'<h3 id="{anchor}">Post <code>{_e(post.id)}</code></h3>\n'
            f"{_issues(post.issues)}{blocks}</section>\n"
        )

    def block(self, anchor: str, block: BlockPreview) -> str:
        settings = "".join(
            f"<dt>{_e(name)}</dt><dd>{_e(value)}</dd>"
            for name, value in [("format", block.format), *block.settings]
        )
        parts = "".join(self.part(part, block.numbered) for part in block.parts)
        thumbnail = ""
        if block.thumbnail is not None:
            thumbnail = (
                '<p class="field">thumbnail</p>\n<ul class="media thumbnail">'
                f"{self.figure(block.thumbnail, None)}</ul>\n"
            )
        return (
            f'<article class="block" data-platform="{block.platform.value}" '
            f'aria-labelledby="{anchor}">\n'
            f'<h4 id="{anchor}">{_e(block.network)} '
            f'<span class="network-label">({block.platform.value})</span></h4>\n'
            f'<dl class="settings">{settings}</dl>\n{parts}{thumbnail}{_issues(block.issues)}'
            "</article>\n"
        )

    def part(self, part: Part, parts: int) -> str:
        heading = ""
        if part.kind is PartKind.COMMENT:
            heading = "<h5>First comment</h5>\n"
        elif parts > 1:
            heading = f"<h5>Part {part.index + 1} of {parts}</h5>\n"
        media = ""
        if part.media:
            count = len(part.media)
            items = "".join(
                self.figure(item, (number, count)) for number, item in enumerate(part.media, 1)
            )
            label = f' aria-label="carousel of {count} files, in order"' if count > 1 else ""
            media = f'<ol class="media"{label}>{items}</ol>\n'
        texts = "".join(_text(text) for text in part.texts)
        return f'<div class="part" data-kind="{part.kind.value}">\n{heading}{media}{texts}</div>\n'

    def figure(self, item: MediaPreview, place: tuple[int, int] | None) -> str:
        label = f"{item.name}: {item.describe()}"
        if place is not None:
            label = f"{place[0]} of {place[1]}, {label}"
        picture = self.pictures.get(item.media.path)
        image = (
            f'<img src="{_e(picture.src)}" width="{picture.width}" height="{picture.height}" '
            f'alt="{_e(f"{item.role} {label}")}">'
            if picture is not None
            else "<p>(no picture could be taken from this file)</p>"
        )
        return (
            f'<li><figure data-media="{_e(item.name)}">{image}'
            f"<figcaption>{_e(label)}<br><code>{_e(item.media.written_path)}</code>"
            + (
                f'<br><span class="alt">alt text: {_e(item.alt)}</span>'
                if item.alt is not None
                else ""
            )
            + "</figcaption></figure></li>"
        )


def _text(text: TextPreview) -> str:
    if text.cut is None:
        body = _e(text.text)
    else:
        cut = text.cut
        body = (
            f'<span class="shown">{_e(cut.shown)}</span>'
            f'<span class="more">… {_e(cut.link)}</span> '
            f'<span class="behind">{_e(cut.hidden)}</span>'
        )
    cut_note = ""
    if text.cut is not None:
        cut_note = (
            f"<li>the app shows the start, the rest behind '{_e(text.cut.link)}' "
            f"({_link(text.cut.rule, text.cut.doc_url)})</li>"
        )
    counts = "".join(_count(count) for count in text.counts)
    return (
        f'<div class="text" data-field="{_e(text.field)}">\n'
        f'<p class="field">{_e(text.field)}</p>\n<p class="body">{body}</p>\n'
        f'<ul class="counts">{counts}{cut_note}</ul>\n</div>\n'
    )


def _count(count: Count) -> str:
    source = _e(count.by)
    if count.rule and count.doc_url:
        source += f", {_link(count.rule, count.doc_url)}"
    over = f": {count.over:,} over the limit" if count.over else ""
    css = "count over" if count.over else "count"
    return f'<li class="{css}">{_e(count.phrase)} ({source}){over}</li>'


def _issues(issues: Sequence[Issue]) -> str:
    if not issues:
        return ""
    items = []
    for issue in issues:
        rule = f" ({_link(issue.rule, issue.doc_url)})" if issue.rule and issue.doc_url else ""
        items.append(
            f'<li class="issue-{issue.severity.value}"><strong>{issue.severity.value}</strong> '
            f"at line {issue.line}, column {issue.column}, <code>{_e(issue.path)}</code>: "
            f"{_e(issue.message)}{rule}</li>"
        )
    return f'<ul class="issues">{"".join(items)}</ul>\n'


def _link(text: str, url: str) -> str:
    return f'<a href="{_e(url)}">{_e(text)}</a>'


def _e(text: str) -> str:
    return escape(text, quote=True)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"
