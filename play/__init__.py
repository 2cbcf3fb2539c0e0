"""Live play: the map of its packages, and one move read from the socket to the
broadcast, is play/README.md."""
