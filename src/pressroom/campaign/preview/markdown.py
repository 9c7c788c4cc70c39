"""The preview as Markdown, for a pull request's job summary.

Every text a campaign holds is shown exactly as written: a post's text in a fenced
block longer than any run of backticks in it, anything else inline with each ASCII
punctuation character escaped, so neither Markdown nor HTML in a post changes the page.
There is no image: GitHub's summary shows none from a relative path and takes no
``data:`` URI, so media are listed in order with their facts; the HTML preview has the
thumbnails.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pressroom.campaign.issues import Issue
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

LIMIT = 1024 * 1024
"""GitHub's cap on one step's job summary, in bytes (1 MiB): a longer summary is not shown
at all ("upload aborted, supports content up to a size of 1024k"), so the preview stops
before it (https://docs.github.com/actions/using-workflows/workflow-commands-for-github-actions#adding-a-markdown-summary)."""
_NOTE_ROOM = 1024
"""Bytes kept for the note that says what was left out."""
_MARKUP = re.compile(r"([\\`*_\[\]<>&|~:#@])")
"""What could start markup inline: emphasis, code, links and images, HTML and entities,
table cells, strikethrough, emoji shortcodes (``:rocket:``), issue references, mentions."""
_LIST_OR_HEADING = re.compile(r"^(\d+)([.)])|^([-+=])")


def render(previews: Sequence[CampaignPreview], limit: int = LIMIT) -> str:
    """The whole preview, at most ``limit`` bytes in UTF-8."""
    head = _head(previews)
    chunks: list[str] = []
    size = _bytes(head)
    left_out = 0
    for preview in previews:
        for chunk in _campaign(preview):
            if left_out or size + _bytes(chunk) > limit - _NOTE_ROOM:
                left_out += chunk.startswith("### ")
                continue
            chunks.append(chunk)
            size += _bytes(chunk)
    if left_out:
        chunks.append(
            f"**The summary stops here:** {_plural(left_out, 'more post')} "
            f"{'is' if left_out == 1 else 'are'} left out to keep it within "
            f"{limit // 1024:,} KiB. The HTML preview shows every post.\n"
        )
    return head + "".join(chunks)


def _head(previews: Sequence[CampaignPreview]) -> str:
    posts = sum(len(p.posts) for p in previews)
    blocks = sum(len(post.blocks) for p in previews for post in p.posts)
    errors = sum(p.errors for p in previews)
    warnings = sum(p.warnings for p in previews)
    return (
        "# Campaign preview\n\n"
        f"{_plural(len(previews), 'campaign')}, {_plural(posts, 'post')} to "
        f"{_plural(blocks, 'network')}; {_plural(errors, 'error')}, "
        f"{_plural(warnings, 'warning')}. Each post as its network will show it; nothing "
        "was sent. Media are listed in order; their thumbnails are in the HTML preview.\n\n"
    )


def _campaign(preview: CampaignPreview) -> list[str]:
    """The campaign's heading and header as one chunk, then one chunk per post (each
    starting ``### ``): what a summary too long is cut between."""
    lines = [f"## {_inline(preview.name)} ({_inline(preview.file)})", ""]
    if not preview.readable:
        lines += ["This file could not be read as a campaign:", ""]
    if preview.description:
        lines += [_paragraph(preview.description), ""]
    if preview.cron and preview.timezone:
        runs = " · ".join(shown_time(run) for run in preview.next_runs) or "none"
        lines += [
            f"**Next runs** ({_inline(preview.cron)} in {_inline(preview.timezone)}): {runs}",
            "",
        ]
    elif preview.readable:
        lines += ["No schedule: the campaign runs only when it is started.", ""]
    lines += _issues(preview.issues)
    return ["\n".join(lines) + "\n", *(_post(post) for post in preview.posts)]


def _post(post: PostPreview) -> str:
    lines = [f"### Post {_inline(post.id)}", ""]
    lines += _issues(post.issues)
    for block in post.blocks:
        lines += _block(block)
    return "\n".join(lines) + "\n"


def _block(block: BlockPreview) -> list[str]:
    settings = "; ".join(f"{name}: {_inline(value)}" for name, value in block.settings)
    lines = [
        f"#### {block.network} ({block.platform.value})",
        "",
        f"format: {_inline(block.format)}; {settings}",
        "",
    ]
    for part in block.parts:
        lines += _part(part, block.numbered)
    if block.thumbnail is not None:
        lines += [f"- thumbnail: {_media(block.thumbnail)}", ""]
    lines += _issues(block.issues)
    return lines


def _part(part: Part, parts: int) -> list[str]:
    lines: list[str] = []
    if part.kind is PartKind.COMMENT:
        lines += ["**First comment**", ""]
    elif parts > 1:
        lines += [f"**Part {part.index + 1} of {parts}**", ""]
    if len(part.media) > 1:
        lines += [f"A carousel of {len(part.media)} files, in order:", ""]
    for index, item in enumerate(part.media, 1):
        lines.append(f"- media {index} of {len(part.media)}: {_media(item)}")
    if part.media:
        lines.append("")
    for text in part.texts:
        lines += _text(text)
    return lines


def _text(text: TextPreview) -> list[str]:
    lines = [f"**{text.field}**", ""]
    if text.cut is None:
        lines += [*_fenced(text.text), ""]
    else:
        cut = text.cut
        lines += [
            *_fenced(cut.shown),
            "",
            f"… {_inline(cut.link)}: the app shows the text above, the rest behind "
            f"'{_inline(cut.link)}' ({_rule(cut.rule, cut.doc_url)}):",
            "",
            *_fenced(cut.hidden),
            "",
        ]
    lines += [" · ".join(_count(count) for count in text.counts), ""]
    return lines


def _count(count: Count) -> str:
    words = f"{_inline(count.phrase)} ({_inline(count.by)}"
    if count.rule and count.doc_url:
        words += f", {_rule(count.rule, count.doc_url)}"
    words += ")"
    if count.over:
        return f"**{words}: {count.over:,} over the limit**"
    return words


def _media(item: MediaPreview) -> str:
    line = f"{_inline(item.name)} ({_inline(item.media.written_path)}): {_inline(item.describe())}"
    return line + (f"; alt text: {_inline(item.alt)}" if item.alt is not None else "")


def _issues(issues: Sequence[Issue]) -> list[str]:
    if not issues:
        return []
    lines = []
    for issue in issues:
        rule = f" ({_rule(issue.rule, issue.doc_url)})" if issue.rule and issue.doc_url else ""
        lines.append(
            f"- **{issue.severity}** at line {issue.line}, column {issue.column}, "
            f"{_inline(issue.path)}: {_inline(issue.message)}{rule}"
        )
    return [*lines, ""]


def _rule(rule: str, doc_url: str) -> str:
    return f"[{_inline(rule)}](<{doc_url.replace('>', '%3E').replace(' ', '%20')}>)"


def _fenced(text: str) -> list[str]:
    runs = [len(run) for run in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return [f"{fence}text", text, fence]


def _inline(text: str) -> str:
    """Text shown as written, on one line: each character that could start Markdown or
    HTML escaped (CommonMark lets any ASCII punctuation be escaped with a backslash)."""
    return _MARKUP.sub(r"\\\1", " ".join(text.split()))


def _paragraph(text: str) -> str:
    """``_inline``, also safe at the start of a line (``1. …``, ``- …`` make no list)."""
    return _LIST_OR_HEADING.sub(lambda m: f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}", _inline(text))


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _bytes(text: str) -> int:
    return len(text.encode())
