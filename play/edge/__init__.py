"""The table socket and the table's pages: where a player's message comes in and each
frame goes out (play/README.md)."""
