#!/usr/bin/env python3
"""A stand-in app for the benchmark: accepts on a Unix socket and reads lines until EOF.

Usage: listener.py <socket-path>. An event that wants a reply gets an allow at once (what an
Always rule does); others get nothing."""
import json
import os
import socket
import sys
import threading

path = sys.argv[1]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
server.listen(128)


def drain(conn):
    with conn:
        f = conn.makefile("rb")
        for line in f:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("wants_reply"):
                reply = {"kind": "decision", "v": event.get("v"), "id": event.get("id"),
                         "decision": "allow"}
                conn.sendall((json.dumps(reply) + "\n").encode())


while True:
    conn, _ = server.accept()
    threading.Thread(target=drain, args=(conn,), daemon=True).start()
