"""The project's tooling: benchmarks, soak, fuzz and load runs, the app's tour and layout check.

Not part of the product: nothing in core/, server/ or client_kivy/ imports it, the wheel
leaves it out and the Android build does not copy it. It runs from the source tree
(``./gamenight bench ...``, ``python -m bench.<module>``) and the tests import it from there.
"""
