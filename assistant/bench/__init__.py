"""`aniso bench ...`: the measurements behind every speed and quality figure.

Only `aniso.cli` imports this package; the product never depends on it.
"""
