"""Games defined outside the rules core, registered as plug-ins (docs/games.md)."""
