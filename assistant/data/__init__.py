"""The user's own data: export, import, forget with verified erasure, and backups."""
