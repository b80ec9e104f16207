#!/usr/bin/env python3
"""A stand-in app for the benchmark: accepts on a Unix socket and reads lines until EOF.

Usage: listener.py <socket-path>. It never answers (a PostToolUse wants no reply)."""
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
        while conn.recv(65536):
            pass


while True:
    conn, _ = server.accept()
    threading.Thread(target=drain, args=(conn,), daemon=True).start()
