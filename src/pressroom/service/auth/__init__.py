"""Dashboard sign-in: passwords, browser sessions, throttling and one-time links.

- Passwords are Argon2 hashes (pwdlib). The API key stays in ``accounts``.
- A session is a random token in an HttpOnly cookie; the database keeps its SHA-256,
  so sessions can be listed and revoked (sign out, sign out everywhere, a password
  change) and hold across restarts and replicas.
- Sign-in is throttled from the database, against the address that failed (an IPv6
  address by its /64): too many wrong passwords for one email from it, or for any
  emails from it, refuse its further tries until the oldest ages out. Nobody else is
  refused, so nobody can lock an account's owner out. Every sign-in runs one Argon2
  check, an unknown email's against a stand-in hash, so its time tells nothing.
- ``pressroom admin sign-in-link`` prints a one-time link: its token is single use and
  expires; only its hash is stored.
"""
