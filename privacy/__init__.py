"""PII detection and redaction. Every write passes through the guard first.

Importing this package is cheap: presidio and spaCy load on the first `Guard.scan`.
"""

from aniso.privacy.audit import audit_record
from aniso.privacy.findings import Finding, ScanResult
from aniso.privacy.guard import Guard
from aniso.privacy.notice import notice

__all__ = ["Finding", "Guard", "ScanResult", "audit_record", "notice"]
