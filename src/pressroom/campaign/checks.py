"""Value rules over a well-shaped file: the platform rules, media, references, names.

Every content rule comes from ``pressroom.platforms`` (the spec's) and ``pressroom.rules``
(each real network's), the tables the service enforces, in that order: a text over the
spec's limit is reported for it alone. Media facts come from ``pressroom.probe``. Spec
recommendations are warnings, and so is a media file a network will take only once
converted for it (a PNG for Instagram); a rule conversion cannot meet is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pressroom import rules as network
from pressroom.campaign import media as media_files
from pressroom.campaign import model
from pressroom.campaign.alts import sent_alts
from pressroom.campaign.fields import (
    ALT_TEXT,
    BOARD,
    CHOICES,
    CONNECTIONS,
    FIT,
    FORMAT,
    PRIVACY,
    PRIVACY_LEVEL,
    THUMBNAIL,
    content_fields,
    takes_post_media,
)
from pressroom.campaign.format import (
    CAROUSEL,
    FIRST_COMMENT_KEY,
    MEDIA_NAME,
    SLUG,
    THREAD,
    Block,
    ThreadEntry,
)
from pressroom.campaign.format import Post as PostSpec
from pressroom.campaign.issues import Reporter, did_you_mean
from pressroom.campaign.selectors import parse_selector
from pressroom.campaign.source import Path as FieldPath
from pressroom.campaign.structure import Shape
from pressroom.campaign.timing import cron_problem, timezone_problem
from pressroom.platforms import (
    PIN_RECOMMENDATION,
    PRIVACY_STATUSES,
    RULES,
    SHORT_VIDEO_RECOMMENDATION,
    THUMBNAIL_RECOMMENDATION,
    Excess,
    MediaKind,
    Platform,
    PostFormat,
    Recommendation,
)
from pressroom.post_campaign import MAX_CHARS as CAMPAIGN_MAX_CHARS
from pressroom.probe import DocumentInfo, FileKind, MediaInfo
from pressroom.rules import formats
from pressroom.rules.alt_text import check_alt_text
from pressroom.rules.formats import DOCUMENT_TITLE
from pressroom.statuses import ShortVideoPrivacyLevel

PRIVACY_LEVELS: tuple[str, ...] = tuple(ShortVideoPrivacyLevel)
_SLUG = re.compile(SLUG)
_MEDIA_NAME = re.compile(MEDIA_NAME)
_ARTICLE: dict[str, str] = {
    MediaKind.IMAGE: "an image",
    MediaKind.VIDEO: "a video",
    FileKind.DOCUMENT: "a PDF (a document)",
}


@dataclass(frozen=True)
class _Advice:
    recommendation: Recommendation
    purpose: str


_ADVICE = {
    THUMBNAIL: _Advice(THUMBNAIL_RECOMMENDATION, "a thumbnail"),
    Platform.SHORT_VIDEO: _Advice(SHORT_VIDEO_RECOMMENDATION, "short_video"),
    Platform.PIN_BOARD: _Advice(PIN_RECOMMENDATION, "pin_board"),
}


def check_values(
    shape: Shape, report: Reporter, base_dir: Path, file: Path
) -> model.Campaign | None:
    """Check every value; the campaign as far as it could be read (None without a
    readable header). It may hold values the report calls errors: only ``validate``
    decides whether it may be planned and run; the preview shows it beside them."""
    checker = _Checker(shape, report, base_dir)
    checker.check_header()
    checker.check_media()
    posts = checker.check_posts()
    checker.report_unused_media()
    header = shape.header
    if header is None:
        return None
    schedule = header.schedule
    return model.Campaign(
        name=header.name,
        file=file.resolve(),
        description=header.description,
        schedule=model.Schedule(schedule.cron, schedule.timezone) if schedule else None,
        retries=model.Retries(**header.retries.model_dump()),
        media=checker.media,
        posts=tuple(posts),
        source=report.source,
    )


class _Checker:
    def __init__(self, shape: Shape, report: Reporter, base_dir: Path) -> None:
        self.shape = shape
        self.report = report
        self.base_dir = base_dir
        self.media: dict[str, model.Media] = {}
        self.unusable_media: set[str] = set(shape.broken_media)
        self.used_media: set[str] = set()

    def check_header(self) -> None:
        header = self.shape.header
        if header is None:
            return
        self._slug(("name",), header.name, "campaign names")
        if header.schedule is not None:
            problem = cron_problem(header.schedule.cron)
            if problem:
                self.report.error(("schedule", "cron"), problem)
            problem = timezone_problem(header.schedule.timezone)
            if problem:
                self.report.error(("schedule", "timezone"), problem)

    def check_media(self) -> None:
        for name, entry in self.shape.media.items():
            path: FieldPath = ("media", name)
            if not _MEDIA_NAME.match(name):
                self.report.error(
                    path,
                    "media names use letters, digits, '-', '_' and '.', starting with a "
                    "letter or digit",
                    at_key=True,
                )
            if entry.folder is not None and not entry.folder.strip():
                self.report.error((*path, "folder"), "the folder name is empty; leave it out")
            if entry.alt is not None and not entry.alt.strip():
                self.report.error(
                    (*path, "alt"), "the alt text is blank: describe the file or leave it out"
                )
            try:
                self.media[name] = media_files.examine(
                    name, entry.path, entry.folder, self.base_dir, entry.alt
                )
            except media_files.MediaProblem as exc:
                self.report.error((*path, "path"), str(exc))
                self.unusable_media.add(name)

    def check_posts(self) -> list[model.Post]:
        if self.shape.header is not None and self.shape.post_count == 0:
            self.report.error(
                ("posts",), "the campaign has no posts: list them under 'posts:'", at_key=True
            )
        seen: dict[str, FieldPath] = {}
        posts = []
        for index, post in self.shape.posts:
            path: FieldPath = ("posts", index)
            if self._slug((*path, "id"), post.id, "post ids"):
                if post.id in seen:
                    first = self.report.source.value((*seen[post.id], "id"))
                    self.report.error(
                        (*path, "id"),
                        f"post id '{post.id}' is already used at line {first.line}; ids must be unique",
                    )
                seen.setdefault(post.id, path)
            media = self._post_media(path, post.media)
            contents = sorted(
                (
                    content
                    for platform in Platform
                    if (content := self._content(path, post, platform, media)) is not None
                ),
                key=lambda content: self.report.source.key(content.path),  # file order
            )
            # A post whose only platform key is unknown (`twitter:`) was reported for that.
            if (
                not contents
                and not self._has_blocks(post)
                and not self.report.has_unknown_key_in(path)
            ):
                self.report.error(
                    path,
                    f"post '{post.id}' goes nowhere: add a block for at least one platform "
                    f"({', '.join(p.value for p in Platform)})",
                )
            posts.append(model.Post(post.id, post.media, tuple(contents), path))
        return posts

    def report_unused_media(self) -> None:
        for name in self.shape.media:
            if name not in self.used_media:
                self.report.warning(
                    ("media", name), f"media '{name}' is not used by any post", at_key=True
                )

    # -- posts ----------------------------------------------------------------

    def _has_blocks(self, post: PostSpec) -> bool:
        return any(platform.value in post.model_fields_set for platform in Platform)

    def _post_media(self, path: FieldPath, name: str | None) -> model.Media | None:
        if name is None:
            return None
        self.used_media.add(name)
        if name in self.media:
            return self.media[name]
        if name not in self.unusable_media:
            known = set(self.shape.media) | self.unusable_media
            hint = did_you_mean(name, known) if known else "add it under 'media:' first"
            self.report.error((*path, "media"), f"no media named '{name}'; {hint}")
        return None

    def _content(
        self, post_path: FieldPath, post: PostSpec, platform: Platform, media: model.Media | None
    ) -> model.Content | None:
        path: FieldPath = (*post_path, platform.value)
        own: Block | None = post.block(platform)
        if own is None:
            if platform.value in post.model_fields_set:
                self.report.error(
                    path,
                    f"the {platform.value} block is empty: give its fields, or write "
                    f"'{platform.value}: {{}}' to take them all from defaults",
                    at_key=True,
                )
            return None
        fallback = self.shape.defaults.block(platform)
        fields: dict[str, str | bool] = {}
        origins: dict[str, FieldPath] = {}
        for name in content_fields(platform):
            value, origin = _pick(name, own, fallback, path, ("defaults", platform.value))
            if isinstance(value, str):
                value = value.strip() if name in CHOICES else value.rstrip()
            if value is not None and value != "":
                fields[name] = value
                origins[name] = origin
        raw, origin = _pick_raw(CONNECTIONS, own, fallback, path, ("defaults", platform.value))
        thread, thread_origin = _pick_raw(THREAD, own, fallback, path, ("defaults", platform.value))
        if thread is not None:
            origins[THREAD] = thread_origin
        comment, comment_origin = _pick_raw(
            FIRST_COMMENT_KEY, own, fallback, path, ("defaults", platform.value)
        )
        if comment is not None:
            origins[FIRST_COMMENT_KEY] = comment_origin
        carousel, carousel_origin = _pick_raw(
            CAROUSEL, own, fallback, path, ("defaults", platform.value)
        )
        if carousel is not None:
            origins[CAROUSEL] = carousel_origin
        content = model.Content(
            platform,
            fields,
            parse_selector(raw, origin if raw is not None else path, self.report),
            path,
            origins,
            tuple(_part_text(part).rstrip() for part in thread or ()),
            comment.rstrip() if isinstance(comment, str) else None,
            carousel=tuple(name.strip() for name in carousel or ()),
            thread_media=tuple(_part_media(part) for part in thread or ())
            if any(_part_media(part) for part in thread or ())
            else (),
        )
        self._check_text(content)
        self._check_format(content)
        if thread is not None:
            self._check_thread(content)
            self._check_thread_media(content)
        if content.first_comment is not None:
            self._check_first_comment(content)
        if carousel is not None:
            self._check_carousel(content)  # instead of the post's media, on this network
        else:
            self._check_media(content, media, post.media)
        self._check_alts(content, post.media)
        return content

    def _check_alts(self, content: model.Content, post_media: str | None) -> None:
        """Each alt text this post sends, at its ``alt:`` line, against the network's
        length limit (Pinterest's 500 code points)."""
        for name, text in sent_alts(content, post_media, self.media).items():
            broken = check_alt_text(content.platform, text)
            if broken is not None:
                self.report.error(
                    ("media", name, "alt"),
                    f"{content.platform.value} ({broken.rule.network}) is sent this alt "
                    f"text: {broken.message} ({broken.reference})",
                )

    def _check_text(self, content: model.Content) -> None:
        rules = RULES[content.platform]
        platform = content.platform.value
        spec_broken: set[str] = set()
        for rule in rules.text_fields:
            value = content.text(rule.name)
            comment = self.report.source.comments.get(content.origins.get(rule.name, ()))
            if comment is not None:
                self.report.warning(
                    content.origins[rule.name],
                    f"the {rule.name} stops before '{comment}': after a space, '#' starts a "
                    "YAML comment; put the whole text in quotes to send it",
                )
            if value is None:
                if rule.required:
                    self._missing(content, rule.name)
                continue
            over = rule.excess(value)
            if over is not None:
                spec_broken.add(rule.name)
                self.report.error(content.origins[rule.name], _too_long(rule.name, over, platform))
        texts = {
            rule.name: content.text(rule.name)
            for rule in rules.text_fields
            if rule.name not in spec_broken
        }
        for violation in network.check_text(content.platform, texts):
            assert violation.field is not None
            self.report.error(
                content.origins[violation.field],
                f"{violation.rule.network} would refuse it: {violation.message.rstrip('.')}",
                rule=violation.rule,
            )
        if rules.requires_board and BOARD not in content.fields:
            self._missing(content, BOARD)
        for name, known in (
            (PRIVACY, PRIVACY_STATUSES),
            (PRIVACY_LEVEL, PRIVACY_LEVELS),
            (FIT, FITS),
        ):
            chosen = content.text(name)
            if chosen is not None and chosen not in known:
                self.report.error(
                    content.origins[name],
                    f"{name} '{chosen}' is not known; {did_you_mean(chosen, known)}",
                )

    def _check_format(self, content: model.Content) -> None:
        """``format`` at its line: one the label offers, then what the format refuses
        that the file shows without probing (a story's text); ``document_title`` goes
        with ``document`` alone (the rule table's ``formats``)."""
        chosen = content.text(FORMAT)
        title = content.text(DOCUMENT_TITLE)
        if chosen is not None and chosen not in set(PostFormat):
            self.report.error(
                content.origins[FORMAT],
                f"format '{chosen}' is not known; "
                f"{did_you_mean(chosen, [str(f) for f in PostFormat])}",
            )
            return
        post_format = PostFormat(chosen) if chosen is not None else PostFormat.POST
        if title is not None and post_format is not PostFormat.DOCUMENT:
            self.report.error(
                content.origins[DOCUMENT_TITLE],
                "document_title titles a document post: add 'format: document' or remove it",
            )
        if not formats.offers(content.platform, post_format):
            offer = formats.offered_rule(content.platform)
            self.report.error(
                content.origins[FORMAT],
                f"{offer.network} makes no {post_format} through its API: "
                f"{content.platform.value} offers format "
                f"{', '.join(formats.offered(content.platform))}",
                rule=offer,
            )
            return
        rule = formats.format_rule(content.platform, post_format)
        if rule is None:
            return
        if not rule.takes_text:
            for text in RULES[content.platform].text_fields:
                if content.text(text.name) is not None:
                    self.report.error(
                        content.origins[text.name],
                        f"{rule.network}'s {rule.format} shows no text: remove {text.name}",
                        rule=rule,
                    )
            if content.first_comment is not None:
                self.report.error(
                    content.origins[FIRST_COMMENT_KEY],
                    f"{rule.network}'s {rule.format} takes no comment: remove first_comment",
                    rule=rule,
                )
        if rule.format is PostFormat.DOCUMENT and title is None:
            self.report.error(
                content.origins[FORMAT],
                "format: document needs its title: add 'document_title: <title>'",
            )

    def _check_thread(self, content: model.Content) -> None:
        """A thread's follow-up parts, each at its own line: blank, then the spec's limit
        of ``text``, then the network's text rules (the checks the first text gets), and
        how many parts the network takes in one thread (its ``thread_parts`` rule)."""
        origin = content.origins[THREAD]
        platform = content.platform.value
        if not content.thread:
            self.report.error(
                origin,
                "thread lists the parts after the first text: give at least one, or leave "
                "'thread:' out for a single post",
            )
            return
        rule = RULES[content.platform].text_rule("text")
        assert rule is not None  # every label that takes threads has a text
        for index, text in enumerate(content.thread):
            where = (*origin, index)
            part = f"part {index + 2} of the thread"
            comment = self.report.source.comments.get(where)
            if comment is not None:
                self.report.warning(
                    where,
                    f"{part} stops before '{comment}': after a space, '#' starts a YAML "
                    "comment; put the whole text in quotes to send it",
                )
            if not text.strip():
                self.report.error(where, f"{part} is blank: write its text or remove the line")
                continue
            over = rule.excess(text)
            if over is not None:
                self.report.error(where, f"{part}: {_too_long('its text', over, platform)}")
                continue
            for violation in network.check_text(content.platform, {rule.name: text}):
                self.report.error(
                    where,
                    f"{part}: {violation.rule.network} would refuse it: "
                    f"{violation.message.rstrip('.')}",
                    rule=violation.rule,
                )
        too_many = network.check_thread(content.platform, 1 + len(content.thread))
        if too_many is not None:
            self.report.error(
                origin,
                f"{too_many.rule.network} would refuse it: {too_many.message.rstrip('.')}",
                at_key=True,
                rule=too_many.rule,
            )

    def _check_first_comment(self, content: model.Content) -> None:
        """A first comment at its own line: blank, then the network's comment rules
        where it documents any (``FIRST_COMMENT`` in the rule table)."""
        text = content.first_comment
        assert text is not None
        where = content.origins[FIRST_COMMENT_KEY]
        comment = self.report.source.comments.get(where)
        if comment is not None:
            self.report.warning(
                where,
                f"the first comment stops before '{comment}': after a space, '#' starts a "
                "YAML comment; put the whole text in quotes to send it",
            )
        if not text.strip():
            self.report.error(where, "first_comment is blank: write the comment or remove the line")
            return
        for violation in network.check_text(content.platform, {FIRST_COMMENT_KEY: text}):
            self.report.error(
                where,
                f"the first comment: {violation.rule.network} would refuse it: "
                f"{violation.message.rstrip('.')}",
                rule=violation.rule,
            )

    def _check_carousel(self, content: model.Content) -> None:
        """A carousel's media list: its count at the key (the network's ``ItemsPerPost``
        rule, as the API checks ``fileIds``, else pressroom's floor of two), then each
        item at its own line as the API checks ``fileIds[i]``: a known media name, a
        kind the network's carousels take, the spec's video length, the network's media
        rules."""
        origin = content.origins[CAROUSEL]
        platform = content.platform
        count = len(content.carousel)
        if platform not in network.CAROUSELS:
            self._check_format_list(content, origin)
            return
        wrong_count = network.check_carousel(platform, count)
        if wrong_count is not None:
            self.report.error(
                origin,
                f"{wrong_count.rule.network} would refuse it: {wrong_count.message.rstrip('.')}",
                at_key=True,
                rule=wrong_count.rule,
            )
        elif count < network.MIN_CAROUSEL_ITEMS:
            self.report.error(
                origin,
                f"a carousel lists at least {network.MIN_CAROUSEL_ITEMS} media; this one "
                f"lists {count}: add more, or write 'media: <name>' on the post for one file",
                at_key=True,
            )
        self._check_items(content, content.carousel, origin)

    def _check_format_list(self, content: model.Content, origin: FieldPath) -> None:
        """A list of media where the network has no carousel but a format of several
        files (TikTok's photo post): the format at the key, its count as the API checks
        ``fileIds``, each file at its own line as the API checks ``fileIds[i]``."""
        platform = content.platform
        chosen = content.text(FORMAT)
        rule = (
            formats.format_rule(platform, PostFormat(chosen)) if chosen in set(PostFormat) else None
        )
        if rule is None or rule.max_items == 1:
            (takes,) = [
                r for r in formats.FORMAT_RULES if r.platform is platform and r.max_items > 1
            ]
            self.report.error(
                origin,
                f"a list of media on {platform.value} is a {takes.network} {takes.format} "
                f"post: add 'format: {takes.format}', or write 'media: <name>' on the post "
                "for one file",
                at_key=True,
                rule=takes,
            )
            return
        wrong_count = formats.check_format_count(rule, len(content.carousel))
        if wrong_count is not None:
            self.report.error(
                origin,
                f"{rule.network} would refuse it: {wrong_count.message.rstrip('.')}",
                at_key=True,
                rule=rule,
            )
        for index, name in enumerate(content.carousel):
            where = (*origin, index)
            media = self._item(name, where)
            if media is None:
                continue
            problem = formats.check_format_file(rule, _facts(media), media.content_type)
            if problem is not None:
                self.report.error(
                    where,
                    f"{rule.network} would refuse media '{name}': {problem.rstrip('.')}",
                    rule=rule,
                )

    def _check_thread_media(self, content: model.Content) -> None:
        """Each thread part's ``media`` as the API checks ``thread[i].fileIds``: one
        file, or a carousel as many as the network's ``ItemsPerPost`` rule allows, each
        item at its own line checked as a carousel's."""
        origin = content.origins[THREAD]
        for index, names in enumerate(content.thread_media):
            if not names:
                continue
            where = (*origin, index, "media")
            too_many = (
                network.check_carousel(content.platform, len(names)) if len(names) > 1 else None
            )
            if too_many is not None:
                self.report.error(
                    where,
                    f"{too_many.rule.network} would refuse it: {too_many.message.rstrip('.')}",
                    at_key=True,
                    rule=too_many.rule,
                )
            self._check_items(content, names, where)

    def _item(self, name: str, where: FieldPath) -> model.Media | None:
        """A list's media name, counted as used; None, with the error at its line, when
        no media has it (one already reported as unusable is not reported again)."""
        self.used_media.add(name)
        media = self.media.get(name)
        if media is None and name not in self.unusable_media:
            known = set(self.shape.media) | self.unusable_media
            hint = did_you_mean(name, known) if known else "add it under 'media:' first"
            self.report.error(where, f"no media named '{name}'; {hint}")
        return media

    def _check_items(
        self, content: model.Content, names: tuple[str, ...], origin: FieldPath
    ) -> None:
        """Each file of a carousel (or a thread part's), at its own line."""
        platform = content.platform
        carousel = network.CAROUSELS[platform]
        for index, name in enumerate(names):
            where = (*origin, index)
            media = self._item(name, where)
            if media is None:
                continue
            if media.kind not in carousel.kinds:
                kinds = " or ".join(_ARTICLE[kind] for kind in sorted(carousel.kinds))
                self.report.error(
                    where,
                    f"{carousel.network}'s carousels on {platform.value} take {kinds} per "
                    f"item, but media '{name}' is {_ARTICLE[media.kind]}",
                )
                continue
            self._check_duration(platform, media, where, at_key=False)
            self._check_network_media(platform, media, where, at_key=False, fit=_fit_of(content))
            advice = _ADVICE.get(platform)
            if advice is not None:
                self._advise(advice, media, where, at_key=False)

    def _missing(self, content: model.Content, name: str) -> None:
        if (*content.path, name) in self.shape.set_aside:
            return  # already reported as a wrong value
        platform = content.platform.value
        self.report.error(
            (*content.path, name),
            f"{platform} needs '{name}': add '{name}: …' here or under defaults.{platform}",
            at_key=True,
            place=content.path,
        )

    def _check_media(
        self, content: model.Content, media: model.Media | None, media_name: str | None
    ) -> None:
        rules = RULES[content.platform]
        platform = content.platform.value
        if rules.text_only and takes_post_media(content.platform, content.fields):
            # A format that takes a file on a text-only label: a document post's PDF.
            if media_name is None:
                self.report.error(
                    content.path,
                    f"format: {content.text(FORMAT)} needs its file: add 'media: <name>' "
                    "(a PDF) to this post",
                    at_key=True,
                )
            elif media is not None:
                self._check_kind(content, media)
        elif rules.text_only:
            if media_name is not None:
                self.report.error(
                    content.path,
                    f"{platform} posts text only, but this post has media '{media_name}': "
                    "move this block to a post without media",
                    at_key=True,
                )
        elif media_name is None and not rules.media_optional:
            kinds = " or ".join(_ARTICLE[kind] for kind in sorted(rules.media_kinds))
            self.report.error(
                content.path,
                f"{platform} needs {kinds}: add 'media: <name>' to this post",
                at_key=True,
            )
        elif media is not None:
            self._check_kind(content, media)
        if media_name is None and content.text(ALT_TEXT) is not None:
            self.report.error(
                content.origins.get(ALT_TEXT, (*content.path, ALT_TEXT)),
                f"'{ALT_TEXT}' describes the post's media, and this post has none: add "
                "'media: <name>' to the post, or remove it",
                at_key=True,
            )
        if content.thumbnail is not None:
            self._check_thumbnail(content)

    def _check_kind(self, content: model.Content, media: model.Media) -> None:
        rules = RULES[content.platform]
        platform = content.platform.value
        chosen = content.text(FORMAT)
        rule = (
            formats.format_rule(content.platform, PostFormat(chosen))
            if chosen in set(PostFormat)
            else None
        )
        if rule is not None:
            info = media.info
            problem = formats.check_format_file(
                rule,
                _facts(media) if isinstance(info, MediaInfo) else None,
                media.content_type,
                pages=info.pages if isinstance(info, DocumentInfo) else None,
                size=media.size,
            )
            if problem is not None:
                self.report.error(
                    content.path,
                    f"{rule.network} would refuse it: {problem.rstrip('.')}",
                    at_key=True,
                    rule=rule,
                )
            elif media.kind in rules.media_kinds:
                self._check_network_media(
                    content.platform, media, content.path, at_key=True, fit=_fit_of(content)
                )
            return
        if media.kind not in rules.media_kinds:
            kinds = " or ".join(_ARTICLE[kind] for kind in sorted(rules.media_kinds))
            only = (
                " (only a professional_network post with 'format: document' takes one)"
                if media.kind == FileKind.DOCUMENT
                else ""
            )
            self.report.error(
                content.path,
                f"{platform} takes {kinds}, but media '{media.name}' is "
                f"{_ARTICLE[media.kind]}{only}",
                at_key=True,
            )
            return
        self._check_duration(content.platform, media, content.path, at_key=True)
        self._check_network_media(
            content.platform, media, content.path, at_key=True, fit=_fit_of(content)
        )
        advice = _ADVICE.get(content.platform)
        if advice is not None:
            self._advise(advice, media, content.path, at_key=True)

    def _check_duration(
        self, platform: Platform, media: model.Media, path: FieldPath, *, at_key: bool
    ) -> None:
        """A video against the spec's length for the label."""
        rules = RULES[platform]
        if not isinstance(media.info, MediaInfo):
            return
        duration = media.info.duration_seconds
        low, high = rules.min_video_seconds, rules.max_video_seconds
        too_short = duration is not None and low is not None and duration < low
        too_long = duration is not None and high is not None and duration > high
        if media.kind is MediaKind.VIDEO and duration is not None and (too_short or too_long):
            self.report.error(
                path,
                f"{platform.value} takes videos of {_span(low, high)}; media '{media.name}' "
                f"is {_seconds(duration)} long",
                at_key=at_key,
            )

    def _check_network_media(
        self,
        platform: Platform,
        media: model.Media,
        path: FieldPath,
        *,
        at_key: bool,
        subject: network.Subject = network.Subject.MEDIA,
        fit: network.Fit | None = None,
    ) -> None:
        """The network's media rules on the probed file: what conversion cannot meet is
        an error, what it can is a warning (the file will be converted for the network;
        a shape it does not take only with ``fit: pad`` or ``fit: crop``)."""
        verdict = network.check_media(platform, _facts(media), subject=subject, fit=fit)
        for violation in verdict.refused:
            self.report.error(
                path,
                f"{violation.rule.network} would refuse media '{media.name}': "
                f"{violation.message.rstrip('.')}",
                at_key=at_key,
                rule=violation.rule,
            )
        for violation in verdict.needs_fitting:
            self.report.warning(
                path,
                f"media '{media.name}' needs converting for {violation.rule.network} "
                f"({violation.fix}): {violation.message.rstrip('.')}",
                at_key=at_key,
                rule=violation.rule,
            )

    def _check_thumbnail(self, content: model.Content) -> None:
        name = content.thumbnail
        assert name is not None
        origin = content.origins[THUMBNAIL]
        self.used_media.add(name)
        thumbnail = self.media.get(name)
        if thumbnail is None:
            if name not in self.unusable_media:
                known = set(self.shape.media) | self.unusable_media
                hint = did_you_mean(name, known) if known else "add it under 'media:' first"
                self.report.error(origin, f"no media named '{name}'; {hint}")
            return
        if thumbnail.kind is not MediaKind.IMAGE:
            self.report.error(
                origin, f"a thumbnail is an image, but media '{name}' is {_ARTICLE[thumbnail.kind]}"
            )
            return
        self._check_network_media(
            content.platform, thumbnail, origin, at_key=False, subject=network.Subject.THUMBNAIL
        )
        self._advise(_ADVICE[THUMBNAIL], thumbnail, origin, at_key=False)

    def _advise(
        self, advice: _Advice, media: model.Media, path: FieldPath, *, at_key: bool
    ) -> None:
        found = media_files.gaps(advice.recommendation, media)
        if found:
            self.report.warning(
                path,
                f"recommended for {advice.purpose}: {media_files.describe(advice.recommendation)}; "
                f"media '{media.name}' is {' and '.join(found)}",
                at_key=at_key,
            )

    def _slug(self, path: FieldPath, value: str, what: str) -> bool:
        if _SLUG.match(value):
            if len(value) <= CAMPAIGN_MAX_CHARS:
                return True
            # Each post goes out with its campaign's name and its own id, which the
            # service refuses past this length: the run would fail at every publish.
            self.report.error(
                path,
                f"{what} are at most {CAMPAIGN_MAX_CHARS} characters (the service keeps no "
                f"longer one), got {len(value)}",
            )
            return False
        suggestion = re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")
        hint = f"; e.g. '{suggestion}'" if suggestion else ""
        self.report.error(
            path, f"{what} use lowercase letters, digits and dashes, got '{value}'{hint}"
        )
        return False


def _pick(
    name: str, own: Block, fallback: Block | None, path: FieldPath, fallback_path: FieldPath
) -> tuple[str | bool | None, FieldPath]:
    value, origin = _pick_raw(name, own, fallback, path, fallback_path)
    return (value if isinstance(value, str | bool) else None), origin


def _part_text(part: str | ThreadEntry) -> str:
    """A thread part's text: the entry itself, or a ``{text, media}`` entry's."""
    return part if isinstance(part, str) else part.text


def _part_media(part: str | ThreadEntry) -> tuple[str, ...]:
    """A thread part's media names; none for a bare text."""
    return () if isinstance(part, str) else tuple(name.strip() for name in part.media)


def _pick_raw(
    name: str, own: Block, fallback: Block | None, path: FieldPath, fallback_path: FieldPath
) -> tuple[Any, FieldPath]:
    """The post's own value, else the default's, with where it was written."""
    value = getattr(own, name, None)
    if value is not None:
        return value, (*path, name)
    if fallback is not None and getattr(fallback, name, None) is not None:
        return getattr(fallback, name), (*fallback_path, name)
    return None, (*path, name)


def _too_long(subject: str, over: Excess, platform: str) -> str:
    return (
        f"{subject} is {over.length:,} {over.unit}; {platform} allows at most "
        f"{over.limit:,} ({over.length - over.limit:,} too many)"
    )


def _span(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{_seconds(low)} to {_seconds(high)}"
    if low is not None:
        return f"at least {_seconds(low)}"
    return f"at most {_seconds(high or 0)}"


def _seconds(value: float) -> str:
    if value >= 60 and value % 60 == 0:
        return f"{value / 60:g} min"
    return f"{value:.1f} s".replace(".0 s", " s")


FITS: tuple[str, ...] = tuple(network.Fit)


def _fit_of(content: model.Content) -> network.Fit | None:
    value = content.text(FIT)
    return network.Fit(value) if value is not None and value in FITS else None


def _facts(media: model.Media) -> network.MediaFacts:
    """An image's or a video's facts for the media rules (a document has none: its
    format rule reads its size and pages)."""
    info = media.info
    assert isinstance(info, MediaInfo), "a document is judged by its format rule alone"
    return network.MediaFacts(
        kind=MediaKind(media.kind),
        content_type=media.content_type,
        size=media.size,
        width=info.width,
        height=info.height,
        duration_seconds=info.duration_seconds,
        video_codec=info.video_codec,
        audio_codec=info.audio_codec,
        frame_rate=info.frame_rate,
    )
