"""The one bearer-token rule of every network channel: the HTTP API, the page's calls and MCP over HTTP.

A server started with ``SEEK_API_TOKEN`` answers a data request only when it carries
``Authorization: Bearer <token>`` with exactly that token (compared in constant time). An empty
or blank token is refused when the server starts (``checked_token``): it would otherwise accept
``Authorization: Bearer`` with nothing after it. A server bound beyond loopback without a token
refuses to start unless told ``--insecure`` (``check_exposure``), since anyone who can reach the
port could search the library.

MCP over HTTP gets the rule as an ASGI middleware in front of the SDK's Starlette app
(``RequireBearer``). The SDK's own ``TokenVerifier`` path is built for OAuth: it needs an
issuer URL and publishes protected-resource metadata naming an authorization server, which a
shared static token does not have.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
REFUSAL = "missing or wrong bearer token; send 'Authorization: Bearer <token>'"


class AuthConfigError(ValueError):
    """A token setting or bind address a server must not start with; the message says what to change."""


def checked_token(token: str | None) -> str | None:
    """``token`` when it is usable, None when unset; an empty or blank token is an ``AuthConfigError``."""
    if token is None:
        return None
    if not token.strip():
        raise AuthConfigError("SEEK_API_TOKEN is set but empty; give it a token, or unset it to serve without one")
    if token != token.strip():
        raise AuthConfigError("SEEK_API_TOKEN starts or ends with whitespace; a header cannot carry it, remove it")
    return token


def check_exposure(host: str, token: str | None, insecure: bool) -> None:
    """Refuse a bind beyond loopback without a token, unless ``insecure`` says the operator means it."""
    if host not in LOOPBACK_HOSTS and token is None and not insecure:
        raise AuthConfigError(
            f"refusing to serve on {host} without SEEK_API_TOKEN: anyone on the network could search the library; "
            "set SEEK_API_TOKEN, bind 127.0.0.1, or pass --insecure if that is what you want")


def bearer_ok(authorization: str | None, token: str | None) -> bool:
    """Whether an ``Authorization`` header satisfies ``token`` (always, when the server has none)."""
    if token is None:
        return True
    scheme, _, given = (authorization or "").partition(" ")
    given = given.strip()
    return scheme.lower() == "bearer" and bool(given) and secrets.compare_digest(given.encode(), token.encode())


class RequireBearer:
    """ASGI middleware: every HTTP request without the right bearer token gets 401 and never reaches ``app``."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = checked_token(token)
        if self.token is None:
            raise AuthConfigError("RequireBearer needs a token")

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        if bearer_ok(authorization, self.token):
            await self.app(scope, receive, send)
            return
        payload = json.dumps({"error": REFUSAL}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
            (b"www-authenticate", b"Bearer")]})
        await send({"type": "http.response.body", "body": payload})
