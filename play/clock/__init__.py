"""The time: the one clock every layer reads (`wall`), and what drives services from it,
the deadline sweep and its schedules (play/README.md)."""
