"""The memory engine: episodes, blocks, links, tiers, retrieval, compaction, embeddings.

This package is the domain core: it imports neither Textual nor the CLI.
"""
