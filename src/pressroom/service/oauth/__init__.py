"""Connecting social accounts: the OAuth 2.0 flow, the token vault, refreshes.

``service.start`` records a ``state`` (hashed) and a PKCE verifier (encrypted) in the
database and returns the platform's authorization URL; ``service.finish`` takes the
callback, consumes the state once, exchanges the code through the platform's driver,
reads the profile and makes (or restores) the connection with its tokens encrypted.
Each step is its own short unit of work: no transaction stays open while a platform
answers. A denied consent, an unknown, used or expired state, or a refused exchange
(a wrong verifier) is an ``OAuthFailure``, and nothing is created.
"""
