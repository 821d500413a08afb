"""Keeping it: the records of sessions, runs and samples, the store over SQLite or PostgreSQL, merging stores."""
