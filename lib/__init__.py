"""Plumbing the apps share, below every app: nothing here knows a model or a page."""
