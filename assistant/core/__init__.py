"""The kernel every layer may import: errors, clock, settings, ports, the SQLite
store and its schema, token counts and process runtime. It imports nothing of aniso.
"""
