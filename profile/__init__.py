"""The user's typed profile: fields, rule and LLM extraction, merge with history.

The profile is the current truth; it always wins over stale memories.
"""
