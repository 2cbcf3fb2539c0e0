"""What each viewer of a table is sent, built from the rows and sent once the change
commits (play/README.md)."""
