"""The support server as a process, for the subprocess tests.

``python mcp_stdio_server.py`` speaks MCP on stdin/stdout;
``python mcp_stdio_server.py http PORT stateless|stateful`` serves streamable HTTP on
127.0.0.1:PORT at ``/mcp``.
"""

from __future__ import annotations

import sys

from mcp_server_support import build_server

if __name__ == "__main__":
    server = build_server()[0]
    if sys.argv[1:2] == ["http"]:
        port, kind = int(sys.argv[2]), sys.argv[3]
        server.run(
            "streamable-http", host="127.0.0.1", port=port, stateless_http=kind == "stateless"
        )
    else:
        server.run("stdio")
