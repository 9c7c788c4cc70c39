"""Database models, engine and session handling, and the Alembic migrations."""
