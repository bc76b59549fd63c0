"""The client side: a library to talk to a skirmish server, and the terminal client.

- ``skirmish.client.connection``: the asyncio client library (``connect``; replies matched by id, the
  view state reduced with ``skirmish.engine.evolve``, resume after a dropped connection, safe retries);
- ``skirmish.client.cli``: ``skirmish play``, ``skirmish spectate`` and ``skirmish games``;
- ``skirmish.client.render``: the board, the units and the options as text;
- ``skirmish.client.narrate``: one line of text per event.

The wire protocol, for clients in other languages: ``docs/protocol.md``.
"""
