"""Accounts, plans and API keys.

Keys look like ``prk_live_<43 url-safe chars>`` (256 random bits). Only their SHA-256 is
stored. Rotation is a compare-and-swap on that hash in one UPDATE, so of two rotations
racing with the same key exactly one wins, and the old key is refused from the commit on.
"""
