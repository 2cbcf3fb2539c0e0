"""Live play's services: each public one a transaction, named <thing>_<verb>
(play/README.md)."""
