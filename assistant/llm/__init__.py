"""Model adapters: the litellm gateway, the embedded model and litellm embeddings."""
