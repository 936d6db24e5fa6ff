"""Datagrams through the lossy switch, for its own tests (stdlib only, run in a namespace).

``udp_probe.py send HOST PORT COUNT`` sends COUNT datagrams ``seq:monotonic-time`` 2 ms apart;
``udp_probe.py recv PORT QUIET WAIT`` prints ``{"got": [[seq, one_way_ms], ...]}`` once nothing
came for QUIET seconds after the first datagram (or WAIT seconds after the start). The
namespaces share the host's monotonic clock, so the one-way time is exact.
"""

from __future__ import annotations

import json
import socket
import sys
import time


def send(host: str, port: int, count: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for seq in range(count):
            sock.sendto(f"{seq}:{time.monotonic()}".encode(), (host, port))
            time.sleep(0.002)


def receive(port: int, quiet: float, wait: float) -> None:
    got: list[list[float]] = []
    start = time.monotonic()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("0.0.0.0", port))
        print("bound", flush=True)
        while time.monotonic() - start < wait:
            sock.settimeout(quiet if got else max(0.01, wait - (time.monotonic() - start)))
            try:
                data = sock.recv(256)
            except TimeoutError:
                break
            seq, sent = data.decode().split(":")
            got.append([int(seq), (time.monotonic() - float(sent)) * 1000])
    print(json.dumps({"got": got}), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        receive(int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]))
