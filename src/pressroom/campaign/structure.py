"""The file's shape: known keys, right types, required keys, each mistake with its place.

Each part (the header, each media entry, the defaults, each post) is validated on its
own, so a broken post does not hide the mistakes of the others. Inside a part, an
offending key is set aside and the part validated again, so one typo does not hide an
over-long text next to it; a key that is a near miss of a field (``titel``) is read as
that field after being reported, which spares the editor a second, confusing error.
"""

from __future__ import annotations

import copy
import difflib
import types
import typing
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from pressroom.campaign.format import (
    CAROUSEL,
    EXTENSION_PREFIX,
    FIRST_COMMENT_KEY,
    MEDIA_LISTS,
    THREAD,
    THREAD_PART_TAGS,
    CampaignFile,
    Defaults,
    MediaEntry,
    Post,
)
from pressroom.campaign.issues import Reporter, did_you_mean
from pressroom.campaign.source import Path
from pressroom.platforms import RULES, Platform
from pressroom.rules import CAROUSELS, COMMENTED, takes_threads

M = TypeVar("M", bound=BaseModel)
_PARTS = {"media": dict, "defaults": dict, "posts": list}
_THREADED = [platform.value for platform in Platform if takes_threads(platform)]
_UNTHREADED = {platform.value for platform in Platform if not takes_threads(platform)}
_COMMENTED = [platform.value for platform in COMMENTED]
_UNCOMMENTED = {platform.value for platform in Platform if platform not in COMMENTED}
_CAROUSELS = [
    *(platform.value for platform in CAROUSELS),
    *(f"{platform.value} (a photo post)" for platform in MEDIA_LISTS - set(CAROUSELS)),
]
_NO_CAROUSELS = {platform.value for platform in Platform if platform not in MEDIA_LISTS}


@dataclass
class Shape:
    """The parts of a file whose shape is right (indexes kept, for paths)."""

    header: CampaignFile | None = None
    media: dict[str, MediaEntry] = field(default_factory=dict)
    broken_media: set[str] = field(default_factory=set)
    defaults: Defaults = field(default_factory=Defaults)
    posts: list[tuple[int, Post]] = field(default_factory=list)
    post_count: int = 0
    set_aside: set[Path] = field(default_factory=set)
    """Values already reported as wrong: not to be reported again as missing."""


def check_shape(data: Any, report: Reporter) -> Shape:
    shape = Shape()
    if not isinstance(data, dict):
        what = "empty" if data is None else f"{_describe(data)}, not a mapping"
        report.error((), f"the file is {what}; a campaign starts with 'name:' and has 'posts:'")
        return shape
    data = _read_part_near_misses(data, report)
    header = {
        key: (_PARTS[key]() if key in _PARTS else value)
        for key, value in data.items()
        if not key.startswith(EXTENSION_PREFIX)
    }
    shape.header = _validate(CampaignFile, header, (), report, shape.set_aside)

    media = data.get("media") or {}
    if not isinstance(media, dict):
        report.error(("media",), _expected("a mapping of media names to files", media))
    else:
        for name, entry in media.items():
            valid = _validate(MediaEntry, entry, ("media", name), report, shape.set_aside)
            if valid is None:
                shape.broken_media.add(name)
            else:
                shape.media[name] = valid

    defaults = _validate(
        Defaults, data.get("defaults") or {}, ("defaults",), report, shape.set_aside
    )
    shape.defaults = defaults or Defaults()

    posts = data.get("posts")
    if "posts" in data and not isinstance(posts, list):
        if posts is None:
            report.error(("posts",), "the campaign has no posts: list them under 'posts:'")
        else:
            report.error(("posts",), _expected("a list of posts (lines starting with '- ')", posts))
    elif isinstance(posts, list):
        shape.post_count = len(posts)
        for index, item in enumerate(posts):
            post = _validate(Post, item, ("posts", index), report, shape.set_aside)
            if post is not None:
                shape.posts.append((index, post))
    return shape


def _validate(
    model: type[M], data: Any, prefix: Path, report: Reporter, set_aside: set[Path]
) -> M | None:
    work = copy.deepcopy(data)
    reported: set[tuple[Path, str]] = set()
    for _ in range(8):
        try:
            return model.model_validate(work)
        except ValidationError as exc:
            errors = [_untagged(error) for error in exc.errors(include_url=False)]
        renames = _renames(model, work, errors)
        for error in errors:
            loc = tuple(error["loc"])
            if (loc, error["type"]) in reported:
                continue
            reported.add((loc, error["type"]))
            if error["type"] == "missing" and (
                _renamed_into(loc, renames) or (*prefix, *loc) in set_aside
            ):
                continue  # reported already, as a near miss or as a wrong value
            _report(model, error, prefix, report, renames.get(loc))
        changed = False
        for error in errors:
            loc = tuple(error["loc"])
            if _set_aside(work, loc, error["type"], renames):
                changed = True
                set_aside.add((*prefix, *loc))
        if not changed:
            return None
    return None  # pragma: no cover - every round sets something aside or stops


def _untagged(error: ErrorDetails) -> ErrorDetails:
    """The error placed where it is written: without the tag of the way a thread part is
    read (``THREAD_PART_TAGS``), which is no key of the file."""
    loc = tuple(part for part in error["loc"] if part not in THREAD_PART_TAGS)
    return {**error, "loc": loc}


def _read_part_near_misses(data: dict[str, Any], report: Reporter) -> dict[str, Any]:
    """``post:`` for ``posts:`` (a part missing, a near miss given): reported once and read
    as that part, its mistakes placed where they are written. Otherwise the part would be
    reported missing too, and what is inside it at the top of the file."""
    absent = [part for part in _PARTS if part not in data]
    for key in [k for k in data if k not in CampaignFile.model_fields]:
        if key.startswith(EXTENSION_PREFIX) or not absent:
            continue
        close = difflib.get_close_matches(key, absent, n=1, cutoff=0.6)
        if close:
            part = close[0]
            report.error((key,), f"unknown key '{key}'; did you mean '{part}'?", at_key=True)
            report.unknown_keys.add((key,))
            report.source.alias((key,), (part,))
            data = {(part if k == key else k): v for k, v in data.items()}
            absent.remove(part)
    return data


def _renames(model: type[BaseModel], work: Any, errors: list[ErrorDetails]) -> dict[Path, str]:
    """Unknown keys that are near misses of a field not given: read them as that field."""
    renames: dict[Path, str] = {}
    for error in errors:
        loc = tuple(error["loc"])
        if error["type"] != "extra_forbidden" or not loc:
            continue
        fields = _fields_at(model, loc[:-1])
        given = _at(work, loc[:-1])
        if not isinstance(given, dict):
            continue
        free = [name for name in fields if name not in given]
        close = difflib.get_close_matches(str(loc[-1]), free, n=1, cutoff=0.6)
        if close:
            renames[loc] = close[0]
    return renames


def _renamed_into(loc: Path, renames: dict[Path, str]) -> bool:
    return any(old[:-1] == loc[:-1] and new == loc[-1] for old, new in renames.items())


def _set_aside(work: Any, loc: Path, kind: str, renames: dict[Path, str]) -> bool:
    """Remove (or rename) what failed so the rest can be checked; False if impossible."""
    target = loc[:-1] if kind == "missing" else loc
    while target and isinstance(target[-1], int):
        target = target[:-1]  # an item of a list (a thread's part): the list goes
    if not target:
        return False
    parent = _at(work, target[:-1])
    if not isinstance(parent, dict) or target[-1] not in parent:
        return False
    value = parent.pop(target[-1])
    if target in renames:
        parent[renames[target]] = value
    return True


def _at(data: Any, path: Path) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _report(
    model: type[BaseModel],
    error: ErrorDetails,
    prefix: Path,
    report: Reporter,
    rename: str | None,
) -> None:
    loc = tuple(error["loc"])
    path = (*prefix, *loc)
    kind = error["type"]
    name = str(loc[-1]) if loc else ""
    if kind == "missing":
        # Named in the path, placed at the mapping that lacks it.
        report.error(path, f"'{name}' is missing: add '{name}: …'", at_key=True, place=path[:-1])
        return
    if kind == "extra_forbidden":
        fields = _fields_at(model, loc[:-1])
        hint = f"did you mean '{rename}'?" if rename else did_you_mean(name, fields)
        if model is CampaignFile and len(loc) == 1 and hint.startswith("expected"):
            hint += f" (keys starting with '{EXTENSION_PREFIX}' are ignored: keep anchors there)"
        if name == FIRST_COMMENT_KEY and len(loc) >= 2 and str(loc[-2]) in _UNCOMMENTED:
            hint = (
                f"{loc[-2]} takes no first comment; only {', '.join(_COMMENTED)} add one "
                "under the post"
            )
        if name == THREAD and len(loc) >= 2 and str(loc[-2]) in _UNTHREADED:
            hint = (
                f"{loc[-2]} takes no thread; only {', '.join(_THREADED[:-1])} and "
                f"{_THREADED[-1]} post one, as a chain of replies"
            )
        if name == CAROUSEL and len(loc) >= 2 and str(loc[-2]) in _NO_CAROUSELS:
            hint = (
                f"{loc[-2]} takes no carousel; only {', '.join(_CAROUSELS)} publish a "
                "list of media as one post"
            )
            if not RULES[Platform(str(loc[-2]))].text_only:
                hint += " (for one file, write 'media: <name>' on the post)"
        report.error(path, f"unknown key '{name}'; {hint}", at_key=True)
        report.unknown_keys.add(path)
        return
    if kind == "list_type" and name == CAROUSEL and len(loc) >= 2:
        one = error.get("input")
        report.error(
            path,
            _expected("a list of media names (lines starting with '- ')", one)
            + f": media in a {loc[-2]} block lists a carousel's files; for one file, "
            + (
                f"write 'media: {one}' on the post"
                if isinstance(one, str)
                else "write 'media:' on the post"
            ),
        )
        return
    report.error(path, _message(model, error, loc))


def _message(model: type[BaseModel], error: ErrorDetails, loc: Path) -> str:
    kind = error["type"]
    given = error.get("input")
    context = error.get("ctx") or {}
    if kind == "string_type":
        quote = "; put it in quotes" if isinstance(given, int | float | bool | date) else ""
        return _expected("text", given) + quote
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        fields = ", ".join(_fields_at(model, loc))
        return _expected(f"a mapping with keys like: {fields}", given)
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return _expected("a whole number", given)
    if kind in ("float_type", "float_parsing"):
        return _expected("a number", given)
    if kind in ("bool_type", "bool_parsing"):
        return _expected("true or false", given)
    if kind in ("greater_than_equal", "greater_than"):
        return f"must be at least {context.get('ge', context.get('gt'))}; got {given!r}"
    if kind in ("less_than_equal", "less_than"):
        return f"must be at most {context.get('le', context.get('lt'))}; got {given!r}"
    if kind == "list_type":
        return _expected("a list (lines starting with '- ')", given)
    return str(error["msg"])


def _expected(what: str, given: Any) -> str:
    return f"expected {what}, got {_describe(given)}"


def _describe(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"yes/no ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value})"
    if isinstance(value, datetime | date):
        return f"a date ({value.isoformat()})"
    if isinstance(value, str):
        return f"text ({value!r})" if len(value) <= 40 else "text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _fields_at(model: type[BaseModel], loc: Path) -> list[str]:
    current: Any = model
    for part in loc:
        if isinstance(part, int) and typing.get_origin(current) is list:
            current = _unwrap(typing.get_args(current)[0])
            continue
        if typing.get_origin(current) is dict:
            current = _unwrap(typing.get_args(current)[1])
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return []
        info = current.model_fields.get(str(part))
        if info is None:
            return []
        current = _unwrap(info.annotation)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return list(current.model_fields)
    return []


def _unwrap(annotation: Any) -> Any:
    """``X | None`` → ``X``."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(options) == 1:
            return options[0]
    return annotation
