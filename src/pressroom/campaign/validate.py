"""Reading a campaign file end to end: YAML, shape, values; every issue at once."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pressroom.campaign.checks import check_values
from pressroom.campaign.issues import Issue, Reporter, Severity, dotted, unique
from pressroom.campaign.model import Campaign
from pressroom.campaign.source import ORIGIN, SourceMap, YamlSyntaxError, glance, parse
from pressroom.campaign.structure import check_shape


@dataclass
class Report:
    """What validating one file found; ``campaign`` is set only when it has no error."""

    file: Path
    campaign: Campaign | None
    issues: list[Issue] = field(default_factory=list)
    draft: Campaign | None = None
    """The campaign as far as it could be read, errors and all (None when not even its
    header could be): what ``campaign preview`` shows beside the errors. Never planned
    or run: that is ``campaign``, set only when there is no error."""

    @property
    def errors(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.severity is Severity.WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors


class CampaignInvalid(ValueError):
    """Raised by ``load``: the file has errors, listed one per line in the message."""

    def __init__(self, report: Report) -> None:
        self.report = report
        lines = "\n".join(str(issue) for issue in report.errors)
        super().__init__(f"{report.file} is not a valid campaign:\n{lines}")


def validate(file: str | Path) -> Report:
    """Check one campaign file; never raises for anything in the file."""
    path = Path(file)
    shown = str(file)
    report = Reporter(shown, SourceMap())
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        report.at(ORIGIN, "campaign", f"the file is not UTF-8 text ({exc.reason})")
        return Report(path, None, report.issues)
    except OSError as exc:
        report.at(ORIGIN, "campaign", f"cannot read the file: {exc.strerror or exc}")
        return Report(path, None, report.issues)
    try:
        parsed = parse(text)
    except YamlSyntaxError as exc:
        report.at(exc.mark, "campaign", exc.message)
        return Report(path, None, report.issues)
    report.source = parsed.source
    for problem in parsed.problems:
        report.at(problem.mark, dotted(problem.path), problem.message)
    shape = check_shape(parsed.data, report)
    campaign = check_values(shape, report, path.resolve().parent, path)
    issues = unique(report.issues)
    return Report(path, campaign if not report.has_errors else None, issues, draft=campaign)


def validate_files(files: Iterable[str | Path]) -> list[Report]:
    """Check several files (each once), and that no two campaigns share a name."""
    seen: set[Path] = set()
    reports = []
    for file in files:
        if Path(file).resolve() not in seen:
            seen.add(Path(file).resolve())
            reports.append(validate(file))
    first_by_name: dict[str, Report] = {}
    for report in reports:
        if report.campaign is None:
            continue
        name = report.campaign.name
        if name in first_by_name:
            other = first_by_name[name]
            mark = report.campaign.source.value(("name",))
            report.issues.append(
                Issue(
                    str(report.file),
                    mark.line,
                    mark.column,
                    "name",
                    f"campaign name '{name}' is also used by {other.file}; names must be unique",
                )
            )
            report.campaign = None
        else:
            first_by_name[name] = report
    return reports


def load(file: str | Path) -> Campaign:
    """The validated campaign; raises ``CampaignInvalid`` listing every error."""
    report = validate(file)
    if report.campaign is None:
        raise CampaignInvalid(report)
    return report.campaign


def campaign_name(file: str | Path) -> str:
    """The campaign's ``name:`` read cheaply (no validation, no media probing), or the
    file's stem: for naming a run before the file is loaded."""
    import yaml

    path = Path(file)
    try:
        data = glance(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError, UnicodeDecodeError):
        data = None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name.strip() else path.stem
