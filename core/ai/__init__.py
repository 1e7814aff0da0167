"""Bots for the four games. ``bot_for(game_name, level)`` returns one (see core.ai.bots)."""
