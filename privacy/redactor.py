"""The guard as the memory controller uses it: redact, audit, and tell the user.

Every write path (chat messages, replies, summaries, imports, exports) calls the same
`AuditedRedactor`, so there is one place where a sensitive value can be stopped and
one place where the fact that it was stopped is recorded.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field

import sqlite_utils

from aniso.core.clock import Clock
from aniso.privacy.audit import audit_record
from aniso.privacy.findings import ScanResult
from aniso.privacy.guard import Guard
from aniso.privacy.notice import notice

SALT_KEY = "audit_salt"


def audit_salt(db: sqlite_utils.Database) -> bytes:
    """The data dir's own HMAC key for audit hashes, created on first use.

    A per-install random key means a hash from one install says nothing about
    another, and erasing the data dir erases the key with it.
    """
    row = db.execute("SELECT value FROM meta WHERE key = ?", [SALT_KEY]).fetchone()
    if row:
        return bytes.fromhex(row[0])
    salt = secrets.token_bytes(32)
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", [SALT_KEY, salt.hex()])
    row = db.execute("SELECT value FROM meta WHERE key = ?", [SALT_KEY]).fetchone()
    return bytes.fromhex(row[0])


@dataclass
class AuditedRedactor:
    """`redactor(text) -> (redacted text, types found, notice for the user or None)`."""

    db: sqlite_utils.Database
    clock: Clock
    guard: Guard = field(default_factory=Guard)
    audit: bool = True
    """False for a temporary chat, which must leave no trace, not even a hash."""
    _salt: bytes | None = None

    def __call__(self, text: str) -> tuple[str, list[str], str | None]:
        result = self.guard.scan(text)
        if not result.findings:
            return result.text, [], None
        if self.audit:
            self._audit([(text, result)])
        return result.text, list(result.types), notice(result.types) or None

    def many(self, texts: list[str]) -> list[str]:
        """The redacted texts of a batch (`Guard.scan_many`), audited like single ones,
        in one insert."""
        results = self.guard.scan_many(texts)
        if self.audit:
            self._audit([(text, r) for text, r in zip(texts, results, strict=True) if r.findings])
        return [result.text for result in results]

    def _audit(self, scanned: list[tuple[str, ScanResult]]) -> None:
        if not scanned:
            return
        if self._salt is None:
            self._salt = audit_salt(self.db)
        at = self.clock()
        rows = [
            {
                "at": at.isoformat(),
                "kind": "redaction",
                "detail": json.dumps(
                    audit_record(finding, text[finding.start : finding.end], salt=self._salt, at=at)
                ),
            }
            for text, result in scanned
            for finding in result.findings
        ]
        self.db["audit"].insert_all(rows)
