.PHONY: test lint fix
test:
	.venv/bin/python -m pytest
lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check .
fix:
	.venv/bin/ruff check --fix . && .venv/bin/ruff format .
