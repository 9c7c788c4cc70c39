"""Dashboard sign-in: passwords, browser sessions, throttling and one-time links.

- Passwords are Argon2 hashes (pwdlib). The API key stays in ``accounts``.
- A session is a random token in an HttpOnly cookie; the database keeps its SHA-256,
  so sessions can be listed and revoked (sign out, sign out everywhere, a password
  change) and hold across restarts and replicas.
- Sign-in is throttled from the database: five failures within fifteen minutes for one
  email, or from one address, refuse further tries until the oldest of them ages out.
- ``pressroom admin sign-in-link`` prints a one-time link: its token is single use and
  expires; only its hash is stored.
"""
