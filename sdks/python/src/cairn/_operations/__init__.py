"""Every REST operation written once, as a function from its arguments to a ``Call``.

The clients bind each of them as a method (``client.py``, ``async_client.py``), so an
operation's signature, defaults and docstring live here and nowhere else.
"""
