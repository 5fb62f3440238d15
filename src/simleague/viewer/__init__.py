"""The web viewer: one HTTP + WebSocket server (:mod:`.server`, aiohttp) and the static pages
that draw each world (``static/``). A competition's front end (e.g. :mod:`simleague.ciberrato.web`)
turns its world into JSON messages and publishes them through :class:`.server.WebViewer`."""
