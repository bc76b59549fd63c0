"""The settings of one node among several (no PostgreSQL or NATS needed)."""

from __future__ import annotations

import pytest

from skirmish.server import cli
from skirmish.server.config import ServerConfig


def test_nats_node_and_lease_ttl_are_settings_from_the_environment():
    c = ServerConfig.from_env({"SKIRMISH_DB": "postgresql://db.example/skirmish", "SKIRMISH_NATS": "nats://bus:4222",
                               "SKIRMISH_NODE": "node2", "SKIRMISH_LEASE_TTL": "5"})
    assert (c.nats, c.node, c.lease_ttl) == ("nats://bus:4222", "node2", 5.0)
    assert ServerConfig().nats == "" and ServerConfig().lease_ttl == 3.0  # one node by default


def test_several_nodes_need_a_postgresql_store_and_a_positive_lease():
    with pytest.raises(ValueError, match="PostgreSQL store"):
        ServerConfig(nats="nats://127.0.0.1:4222", db="games.sqlite")
    with pytest.raises(ValueError, match="lease_ttl"):
        ServerConfig(db="postgresql://h/db", nats="nats://127.0.0.1:4222", lease_ttl=0)


def test_serve_says_what_is_wrong_instead_of_a_traceback(capsys):
    assert cli.main(["serve", "--db", ":memory:", "--nats", "nats://127.0.0.1:4222"]) != 0
    assert "PostgreSQL store" in capsys.readouterr().err
