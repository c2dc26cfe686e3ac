#!/usr/bin/env python3
"""Drive a page in a headless Chromium over the DevTools protocol, with the standard library
only: cdp.py PORT STEP... where Chromium listens with --remote-debugging-port=PORT and has one
page open. Each STEP is a JavaScript expression evaluated in the page (a promise is awaited);
its value is printed on one line ("-" for undefined). A step "sleep:MS" waits. A step that
meets a page still loading is run again in the loaded one. Exits 1 when an expression throws."""
import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.request


def page_ws(port):
    for _ in range(100):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=2) as r:
                pages = [p for p in json.load(r) if p.get("type") == "page"]
            if pages:
                return pages[0]["webSocketDebuggerUrl"]
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("cdp: no page on port %d" % port)


class WebSocket:
    def __init__(self, url):
        rest = url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
                        % (path, hostport, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.s.recv(1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            sys.exit("cdp: websocket refused: %r" % head)

    def send(self, text):
        data, mask = text.encode(), os.urandom(4)
        n = len(data)
        head = struct.pack("!BB", 0x81, 0x80 | n) if n < 126 else struct.pack("!BBH", 0x81, 0xFE, n)
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.s.recv(n - len(buf))
            if not chunk:
                sys.exit("cdp: connection closed")
            buf += chunk
        return buf

    def recv(self):
        b0, b1 = self.exact(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self.exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self.exact(8))[0]
        data = self.exact(n)
        return data.decode() if b0 & 0x0F == 1 else self.recv()


def main():
    ws, seq = WebSocket(page_ws(int(sys.argv[1]))), 0
    for step in sys.argv[2:]:
        if step.startswith("sleep:"):
            time.sleep(int(step[6:]) / 1000)
            continue
        for _ in range(20):
            seq += 1
            ws.send(json.dumps({"id": seq, "method": "Runtime.evaluate", "params": {
                "expression": step, "awaitPromise": True, "returnByValue": True}}))
            while True:
                answer = json.loads(ws.recv())
                if answer.get("id") == seq:
                    break
            # Evaluated while the page was still loading (about:blank first): again, in the new one.
            if "context" not in answer.get("error", {}).get("message", ""):
                break
            time.sleep(0.1)
        result = answer.get("result", {})
        if "exceptionDetails" in result or "error" in answer:
            sys.exit("cdp: %s: %s" % (step, json.dumps(result.get("exceptionDetails", answer.get("error")))))
        value = result.get("result", {}).get("value")
        print("-" if value is None else value)


main()
