"""The one-shot client programs: the smallest realistic script a user writes with each stack.

Each one connects, makes one echo call with ``{"text": "hi"}``, prints the text and exits; the
bench writes them into its temp dir (the gRPC one next to its generated stubs, as a user's
script sits next to its ``*_pb2.py``) and times whole processes. venom-echo's counterpart is
its generated CLI, ``venom-echo echo --text hi``; socat's is ``socat - UNIX-CONNECT:SOCK``.
"""

from __future__ import annotations

__all__ = ("GRPC", "JSONRPC", "MCP", "VARLINK")

GRPC = """\
import sys
import grpc
import echo_pb2, echo_pb2_grpc
with grpc.insecure_channel("unix:" + sys.argv[1]) as channel:
    reply = echo_pb2_grpc.EchoStub(channel).Echo(echo_pb2.EchoRequest(text="hi"), timeout=10)
    print(reply.text)
"""

VARLINK = """\
import sys
import varlink
with varlink.Client(address="unix:" + sys.argv[1]) as client:
    with client.open("org.example.echo") as echo:
        print(echo.Echo("hi")["text"])
"""

#: Stdlib socket + json, as a user would hand-write a JSON-RPC 2.0 call over a Unix socket.
JSONRPC = """\
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
request = {"jsonrpc": "2.0", "id": 1, "method": "echo", "params": {"text": "hi"}}
s.sendall(json.dumps(request).encode() + b"\\n")
print(json.loads(s.makefile("rb").readline())["result"]["text"])
"""

#: The MCP SDK client: spawn the server given on the command line, initialize, call, exit.
MCP = """\
import sys
import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

async def main():
    server = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with Client(server) as client:
        result = await client.call_tool("echo", {"text": "hi"})
        print(result.structured_content)

anyio.run(main)
"""
