"""PII detection, redaction and policy. Every write passes through the guard first."""
