.PHONY: test lint fix typecheck loop-erasure
test:
	.venv/bin/python -m pytest
lint:
	.venv/bin/ruff check . && .venv/bin/ruff format --check . && scripts/typecheck
typecheck:
	scripts/typecheck
fix:
	.venv/bin/ruff check --fix . && .venv/bin/ruff format .
loop-erasure:
	scripts/loop-erasure 30
