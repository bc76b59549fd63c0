"""The client side: a library to talk to a skirmish server, and the terminal client.

- ``client.connection``: the asyncio client library (``connect``; replies matched by id, the
  view state reduced with ``engine.evolve``, resume after a dropped connection, safe retries);
- ``client.cli``: ``skirmish play``, ``skirmish spectate`` and ``skirmish games``;
- ``client.render``: the board, the units and the options as text;
- ``client.narrate``: one line of text per event.

The wire protocol, for clients in other languages: ``docs/protocol.md``.
"""
