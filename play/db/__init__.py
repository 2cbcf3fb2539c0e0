"""Live play's storage: the reads and writes a move makes, the table and game locks, the
seats read under them (play/README.md)."""
