"""Kivy widgets: common themed controls and the board widgets of the four games."""
