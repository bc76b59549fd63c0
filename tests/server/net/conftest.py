"""Fixtures of the server's network tests (helpers: ``helpers.py``)."""

from __future__ import annotations

import pytest

from skirmish.server.app import ServerConfig, running_server
from skirmish.server.store import MemoryStore

from .helpers import ServerProcess


# -- fixtures -----------------------------------------------------------------------------------


@pytest.fixture
def make_server():
    """``async with make_server(**config) as srv``: a server on an ephemeral port with an in-memory
    store (``srv.store``) that outlives it."""

    def factory(store=None, **config):
        config.setdefault("port", 0)
        config.setdefault("db", ":memory:")
        return running_server(ServerConfig(**config), store=store if store is not None else MemoryStore())

    return factory


@pytest.fixture
def processes():
    """A list to put the ``ServerProcess``es a test starts in: each is cleaned up after the test."""
    started: list[ServerProcess] = []
    yield started
    for p in started:
        p.cleanup()


@pytest.fixture
async def server(make_server):
    async with make_server() as srv:
        yield srv


