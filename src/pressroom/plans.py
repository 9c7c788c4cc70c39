"""Plans and their limits, exactly as the spec's plan table gives them."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum


class Plan(StrEnum):
    BUSINESS = "business"
    AGENCY = "agency"
    BLOGGER = "blogger"


@dataclass(frozen=True)
class PlanLimits:
    api_access: bool
    profiles_per_platform: int
    monthly_uploads: int
    price_usd: Decimal | None


PLAN_LIMITS: dict[Plan, PlanLimits] = {
    Plan.BUSINESS: PlanLimits(True, 15, 250, Decimal("31.99")),
    Plan.AGENCY: PlanLimits(True, 30, 550, Decimal("63.99")),
    Plan.BLOGGER: PlanLimits(False, 0, 0, None),
}
