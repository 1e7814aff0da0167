"""Bots for the four games. ``make_bot(game_name, level)`` in core.ai.bots returns one."""
