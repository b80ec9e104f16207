#!/usr/bin/env python3
"""A minimal Python hook forwarder, as today's island apps ship: read the agent's JSON on stdin,
wrap it in an envelope, write one line to the app's Unix socket, exit 0 (also with no app)."""
import json
import os
import socket
import sys

try:
    payload = json.loads(sys.stdin.read() or "{}")
    line = json.dumps({"kind": "event", "v": 9, "id": str(os.getpid()), "agent": "claude",
                       "event": sys.argv[1], "wants_reply": False,
                       "terminal": {"cwd": os.getcwd(), "pid": os.getpid()},
                       "payload": payload}) + "\n"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(os.environ["VULTS_SOCKET"])
    s.sendall(line.encode())
    s.close()
except Exception:
    pass
