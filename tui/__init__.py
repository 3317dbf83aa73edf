"""The Textual terminal UI: a thin layer over `aniso.Assistant`."""
