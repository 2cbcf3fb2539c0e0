"""The web process keeps its startup objects out of the garbage collector's way."""

from __future__ import annotations

import gc


def test_the_asgi_application_freezes_its_startup_objects_and_collects_young_ones_less_often():
    from config import asgi

    assert gc.get_freeze_count() > 10_000  # Django and the apps, frozen once loaded
    assert gc.get_threshold() == asgi.GC_THRESHOLDS
    assert asgi.GC_THRESHOLDS[0] > 700  # the default, under which a move's objects aged
