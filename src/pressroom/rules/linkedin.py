"""LinkedIn (professional_network): no rule is in the table yet.

The 3,000-character limit on a post's commentary is quoted by integrations, but was not
found on a LinkedIn page, and whether the escapes of LinkedIn's "little text" format
count is not known. Add it here, with its page, once confirmed.
"""

from __future__ import annotations

from pressroom.platforms import Platform
from pressroom.rules.model import Rule

PLATFORM = Platform.PROFESSIONAL_NETWORK
NETWORK = "LinkedIn"

RULES: tuple[Rule, ...] = ()
