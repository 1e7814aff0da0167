"""One module + one .kv file per screen."""
