"""config/channel_layer.py overrides private parts of channels_redis (its docstring lists
them): pinned to the version they were read from."""

from __future__ import annotations

import channels_redis

# The channels_redis whose private code config/channel_layer.py was written against.
PATCHED_VERSION = "4.3.0"


def test_channels_redis_is_the_version_the_channel_layer_patch_was_written_for():
    assert channels_redis.__version__ == PATCHED_VERSION, (
        f"channels_redis is {channels_redis.__version__}, config/channel_layer.py was written "
        f"against {PATCHED_VERSION}: re-read its overrides against the new release (the "
        "methods it replaces, the attributes it uses, whether upstream fixed the races it "
        "names — tests/config/test_channel_layer.py says so for the core layer's), then "
        "update PATCHED_VERSION."
    )
