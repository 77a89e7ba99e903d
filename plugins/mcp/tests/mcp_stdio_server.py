"""The support server over stdio, for the subprocess tests: ``python mcp_stdio_server.py``."""

from __future__ import annotations

from mcp_server_support import build_server

if __name__ == "__main__":
    server = build_server()[0]
    server.run("stdio")
