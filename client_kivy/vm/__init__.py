"""View models: game logic and network state, no Kivy (see docs/client.md)."""
