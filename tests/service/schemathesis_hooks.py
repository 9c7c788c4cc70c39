"""The one place where the API contract test steps around what JSON Schema cannot say.

Loaded by ``st run`` through ``SCHEMATHESIS_HOOKS``. Each rule below changes only
*positive* cases (data schemathesis believes valid), and only to make them valid by the
service's own rules; negative cases reach the service untouched, and must be refused.
Everything JSON Schema can state is in the document instead: cursors have their exact
``pattern``, a filename's extension follows its contentType by ``if``/``then``, and an
integer field takes ``6357.0`` as JSON Schema's ``integer`` does.
"""

from __future__ import annotations

import regex
import schemathesis
from schemathesis import GenerationMode, HookContext

from pressroom import rules as network
from pressroom.platforms import RULES
from pressroom.rules.alt_text import ALT_TEXT_RULES
from pressroom.rules.model import ForbiddenCharacters, ItemCount

_GRAPHEME = regex.compile(r"\X")
_PUBLISH_PATHS = {rules.publish_path: rules for rules in RULES.values()}


@schemathesis.hook
def map_case(context: HookContext, case: schemathesis.Case) -> schemathesis.Case:
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return case
    body = case.body
    if not isinstance(body, dict):
        return case

    # 1. Text limits count characters as people see them (`x-max-graphemes`): JSON Schema
    #    counts code points only (`maxLength`, which allows 16 per character, so it never
    #    refuses a valid text). A text is cut to its limit in characters.
    rules = _PUBLISH_PATHS.get(case.operation.path)
    if rules is not None:
        for rule in rules.text_fields:
            value = body.get(rule.name)
            if rule.max_chars is not None and isinstance(value, str):
                body[rule.name] = "".join(_GRAPHEME.findall(value)[: rule.max_chars])

    # 2. The real network's rules count otherwise or forbid characters (``pressroom.rules``:
    #     X weighs CJK and emoji 2, YouTube forbids `<` `>`): a positive text is made to
    #     meet them too, by dropping what a rule forbids and cutting what is too long.
    if rules is not None:
        platform = rules.platform
        for _ in range(100):
            texts = {
                r.name: v if isinstance(v := body.get(r.name), str) else None
                for r in rules.text_fields
            }
            found = network.check_text(platform, texts)
            if not found:
                break
            violation = found[0]
            name = violation.field or ""
            value = str(body[name])
            rule = violation.rule
            if isinstance(rule, ForbiddenCharacters):
                body[name] = "".join(c for c in value if c not in rule.characters)
            elif isinstance(rule, ItemCount):
                body[name] = value.replace("#", "").replace("@", "")
            else:
                clusters = _GRAPHEME.findall(value)
                body[name] = "".join(clusters[: max(0, len(clusters) * 9 // 10 - 1)])
            if not str(body[name]).strip():
                body[name] = "x"  # what was dropped was all there was

    # 3. A post format's rules tie fields together (``pressroom.rules.formats``): a story
    #    shows no text and takes no first comment, a story or a reel is one file, a
    #    document is one PDF titled by `documentTitle` (and a title belongs to a document
    #    alone), short_video's `fileIds` make a photo post. JSON Schema says which formats
    #    a label offers; a positive body is made to meet the rest.
    labelled = rules or next(
        (r for r in RULES.values() if r.platform.value == body.get("platform")), None
    )  # the spec's one route for every label names the label in the body
    if labelled is not None:
        chosen = body.get("format")
        if chosen in ("story", "reel"):
            for name in ("caption", "message", "text", "firstComment", "fileIds"):
                body.pop(name, None)
            body.setdefault("fileId", "0")
        if chosen == "document":
            body.pop("fileIds", None)
            if not isinstance(body.get("fileId"), str):
                body["fileId"] = "0"
            if not str(body.get("documentTitle") or "").strip():
                body["documentTitle"] = "x"
        elif "documentTitle" in body:
            del body["documentTitle"]
        if labelled.platform.value == "professional_network" and chosen != "document":
            body.pop("fileId", None)
            if "fileIds" not in body and "text" not in body:
                body["text"] = "x"
        if labelled.platform.value == "short_video" and "fileIds" in body:
            body["format"] = "photo"
        # open_microblog's `fileAlts` names the post's own files by id, which JSON Schema
        # cannot tie to `fileId` and `fileIds`: a positive body keeps only those.
        alts = body.get("fileAlts")
        if isinstance(alts, dict):
            files = {body.get("fileId"), *(body.get("fileIds") or [])}
            body["fileAlts"] = {name: alt for name, alt in alts.items() if name in files}

    # 4. `fileAlts` keys are the post's own file ids, and a network takes alt text on a
    #    feed post's files only, a carousel Pin's none (``pressroom.rules.alt_text``):
    #    JSON Schema cannot tie a map's keys to other fields' values. A positive body's
    #    alt text goes to the post's first file, or is dropped where none can take it.
    if labelled is not None and isinstance(body.get("fileAlts"), dict):
        texts = [t for t in body["fileAlts"].values() if isinstance(t, str) and t.strip()]
        ids = [body["fileId"]] if isinstance(body.get("fileId"), str) else []
        ids += [i for i in body.get("fileIds") or [] if isinstance(i, str)]
        carousel = bool(body.get("fileIds"))
        rule = ALT_TEXT_RULES[labelled.platform]
        if (
            not ids
            or not texts
            or body.get("format", "post") != "post"
            or (carousel and not rule.carousels)
        ):
            del body["fileAlts"]
        else:
            body["fileAlts"] = {ids[0]: texts[0]}

    # 5. Whether a webhook URL may be called depends on where its host is (a public
    #    address): the network's answer, not the string's shape, which JSON Schema cannot
    #    know. Positive cases point at a public https host.
    if case.operation.path.startswith("/api/webhooks") and isinstance(body.get("url"), str):
        body["url"] = "https://hooks.example.com/pressroom"
    return case
