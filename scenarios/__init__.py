"""MemPersonal-format scenario suites (data files) and their runner."""
