"""The daemon's answers to `initialize` and the lists (tools, prompts, resources), kept in a file
beside this module.

The relay (`mnemovault mcp`) answers a client's first requests from it while it starts the
daemon, so an assistant sees the tools at once instead of after the daemon's start; every call
still goes to the daemon. The versions the daemon answers `initialize` for are also what the
relay tells a client probing the newer protocol's `server/discover` (it speaks the handshake).
`python -m bridge.mcp_manifest` writes it again from the server; a test fails when the file and
the server differ. Loading it is standard library only (the relay imports no engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PATH = Path(__file__).with_name("mcp_manifest.json")
FORMAT = 1
UNKNOWN_VERSION = "0000-00-00"  # asked for when building: what the server answers to a version it does not know
# the lists a client asks for before its first call, answered from the file while the daemon starts
LISTS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


def load(path: Path = PATH) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    ok = isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("initialize"), dict)
    return data if ok else None


def initialize_result(manifest: dict[str, Any], requested: Any) -> dict[str, Any]:
    """The server's answer to an initialize asking for protocol version `requested`."""
    answers: dict[str, Any] = manifest["initialize"]
    key = requested if isinstance(requested, str) and requested in answers else UNKNOWN_VERSION
    result: dict[str, Any] = answers[key]
    return result


def handshake_versions(manifest: dict[str, Any]) -> list[str]:
    """The protocol versions the server accepts in `initialize`, oldest first."""
    return sorted(v for v in manifest["initialize"] if v != UNKNOWN_VERSION)


def build() -> dict[str, Any]:
    """Ask a server built as the daemon builds it, over its own HTTP app, for every answer."""
    import anyio

    return anyio.run(_build)


async def _build() -> dict[str, Any]:
    import httpx
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from .mcp_server import build_mcp

    app = build_mcp(lambda: None).http_app(path="/mcp")
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    answers: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            for version in (*HANDSHAKE_PROTOCOL_VERSIONS, UNKNOWN_VERSION):
                init = {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": version,
                        "capabilities": {},
                        "clientInfo": {"name": "manifest", "version": "1"},
                    },
                }
                resp = await client.post("/mcp", json=init, headers=headers)
                answers[version] = _message(resp)["result"]
                if version == HANDSHAKE_PROTOCOL_VERSIONS[-1]:
                    session = {
                        **headers,
                        "Mcp-Session-Id": resp.headers["mcp-session-id"],
                        "MCP-Protocol-Version": answers[version]["protocolVersion"],
                    }
                    await client.post(
                        "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session
                    )
                    for n, method in enumerate(LISTS, start=2):
                        listed = await client.post(
                            "/mcp", json={"jsonrpc": "2.0", "id": n, "method": method}, headers=session
                        )
                        lists[method] = _message(listed)["result"]
    return {"format": FORMAT, "initialize": answers, **lists}


def _message(resp: Any) -> dict[str, Any]:
    if "text/event-stream" in resp.headers.get("content-type", ""):
        data = [line[5:].strip() for line in resp.text.splitlines() if line.startswith("data:")]
        message: dict[str, Any] = json.loads(data[-1])
    else:
        message = resp.json()
    if "result" not in message:
        raise RuntimeError(f"the MCP server answered {message}")
    return message


def render(manifest: dict[str, Any]) -> str:
    return json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    PATH.write_text(render(build()), encoding="utf-8")
    print(f"wrote {PATH}")
