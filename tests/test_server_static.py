"""daphne alone serves the static files (no web server at a game night), through WhiteNoise
with caching headers."""

from __future__ import annotations

from channels.testing import HttpCommunicator

from server.asgi import application

WAIT = 60  # seconds: only a hang takes this long (channels' default is 1 s)


async def test_admin_css_is_served() -> None:
    comm = HttpCommunicator(application, "GET", "/static/admin/css/base.css")
    await comm.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await comm.receive_output(WAIT)
    assert start["type"] == "http.response.start" and start["status"] == 200
    headers = {k.lower(): v for k, v in start["headers"]}
    assert headers[b"content-type"].split(b";")[0] == b"text/css"
    assert b"max-age" in headers[b"cache-control"]
    body = b""
    while True:
        chunk = await comm.receive_output(WAIT)
        body += chunk.get("body", b"")
        if not chunk.get("more_body"):
            break
    assert b"body" in body


async def test_unknown_static_file_is_404() -> None:
    # (a request that reaches Django names an allowed host: the server's own, or loopback)
    comm = HttpCommunicator(application, "GET", "/static/no/such/file.css",
                            headers=[(b"host", b"localhost")])
    response = await comm.get_response(timeout=WAIT)
    assert response["status"] == 404
