"""Django's PostgreSQL backend, with the pooled connections checked our way (``base.py``).

``server/settings.py`` names it as the ENGINE when the connection pool is on (Django's
documented way to change a built-in backend: a subclass of its ``DatabaseWrapper``)."""
