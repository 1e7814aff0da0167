"""gamenight tablet app (Kivy).

Layout: ``vm/`` holds plain-Python view models (no Kivy imports; the tests drive them without a
window), ``screens/`` one ``.kv`` + ``.py`` per screen, ``widgets/`` the board widgets that draw
the view JSON with canvas instructions. ``python -m client_kivy`` starts the app.
"""
