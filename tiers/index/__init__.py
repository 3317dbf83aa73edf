"""Derived stores, rebuildable from SQLite: FTS5, the vector index and its outbox."""
