"""The one place that opens HTTP connections to a daemon on this machine.

Calls to 127.0.0.1 always go direct. urllib.request and httpx follow HTTP_PROXY, HTTPS_PROXY
and ALL_PROXY from the environment, which would hand the bearer token and memory text to
whatever proxy a person configured for the web (and fail with the proxy's 502); http.client
never reads those variables.
"""

from __future__ import annotations

import http.client

LOCAL_HOST = "127.0.0.1"


def local_connection(port: int, timeout: float | None) -> http.client.HTTPConnection:
    """A direct connection to a daemon's port on 127.0.0.1 (never proxied)."""
    return http.client.HTTPConnection(LOCAL_HOST, int(port), timeout=timeout)
