"""Several server nodes on one PostgreSQL store, linked by NATS (docs/store.md, "Several nodes")."""
