"""libzmq 4.3.x aborts the whole process with ``Assertion failed: !_io_error
(src/stream_engine_base.cpp:310)`` (issue 21 §8; libzmq issues 3937, 4364, 4767) when a
connection whose input is stopped fails and a ZMTP heartbeat is then written on it.

The trigger, reproduced here with real processes on loopback: a peer fills its connection's
pipe on our ROUTER past ``ZMQ_RCVHWM`` while our loop is not reading (the input of that
connection stops), its process is stopped (our ZMTP PINGs pile up unread in its kernel
buffer), then killed (its kernel resets the connection: an error event on a stopped engine
sets ``_io_error``), and our next heartbeat on that engine asserts. The honest host saw it with
a bot stopped, resumed and stopped again next to a hostile flooder. ``Links`` keeps no
receive high-water mark on its ROUTER (and no ``ROUTER_HANDOVER``, the other way a
connection's input stops), so no input ever stops: the process survives and reads it all.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from dudo_p2p.net.routing import routing_id

ROUTER_CHILD = """
import sys, time, zmq
from dudo_p2p.net.links import Links
real_socket = zmq.Context.socket
def old_router(ctx, kind, **kw):  # the ROUTER options before the fix (set before bind)
    sock = real_socket(ctx, kind, **kw)
    if kind == zmq.ROUTER:
        sock.setsockopt(zmq.RCVHWM, 1000)
        sock.setsockopt(zmq.ROUTER_HANDOVER, 1)
        sock.setsockopt = lambda opt, value: None if opt in (zmq.RCVHWM, zmq.ROUTER_HANDOVER) \\
            else zmq.Socket.setsockopt(sock, opt, value)
    return sock
if sys.argv[1] == "old":  # to show the scenario is the trigger
    zmq.Context.socket = old_router
ctx = zmq.Context()
links = Links(ctx, b"\\xaa" * 32)
print(links.port, flush=True)
sys.stdin.readline()  # a busy loop: nothing is read until the test says the scenario is over
got = 0
deadline = time.monotonic() + 5
while got < 2000 and time.monotonic() < deadline:
    links._router.poll(100)
    got += len(links.recv_ready())
print("read", got, flush=True)
links.close()
ctx.term()
"""

FLOODER_CHILD = """
import sys, time, zmq
ctx = zmq.Context()
dealer = ctx.socket(zmq.DEALER)
dealer.setsockopt(zmq.ROUTING_ID, bytes.fromhex(sys.argv[2]))
dealer.setsockopt(zmq.SNDHWM, 0)
dealer.connect("tcp://127.0.0.1:" + sys.argv[1])
for _ in range(2000):
    dealer.send(b"x" * 100)
print("sent", flush=True)
time.sleep(60)
"""

# The router does not read until the test writes it a line once the flooder is killed (it slept
# a fixed 5 s, and the scenario had to fit in it: the flooder's start-up, 1 s, 1.5 s; on a loaded
# machine a slow start-up could let the router read before the kill, and "old" not abort).
RESET_HEARD = 2.0  # after the kill, a heartbeat or two (1 s apart) meets the reset engine
READ_WITHIN = 15.0  # the router's reading and exit, once told


def _scenario(settings: str) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    router = subprocess.Popen([sys.executable, "-c", ROUTER_CHILD, settings],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
    flooder: subprocess.Popen[str] | None = None
    try:
        assert router.stdout is not None
        port = router.stdout.readline().strip()
        rid = routing_id(b"\xbb" * 32, b"\x01" * 8).hex()
        flooder = subprocess.Popen([sys.executable, "-c", FLOODER_CHILD, port, rid],
                                   stdout=subprocess.PIPE, text=True)
        assert flooder.stdout is not None
        assert flooder.stdout.readline().strip() == "sent"
        time.sleep(1.0)  # the frames cross; the router's pipe holds what it takes
        os.kill(flooder.pid, signal.SIGSTOP)
        time.sleep(1.5)  # a PING or two of the router lands unread in the stopped flooder
        os.kill(flooder.pid, signal.SIGKILL)  # unread data at close: a reset
        flooder.wait(timeout=10)
        flooder.stdout.close()
        time.sleep(RESET_HEARD)  # the router still reads nothing: the scenario itself
        out, err = router.communicate("read now\n", timeout=READ_WITHIN)
        return router.returncode, out + err
    finally:
        for proc in (flooder, router):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)


def test_a_stopped_then_killed_flooder_does_not_abort_the_router_process() -> None:
    code, output = _scenario("new")
    assert "!_io_error" not in output
    assert code == 0, output
    assert "read 2000" in output, output


@pytest.mark.skipif(sys.platform != "linux", reason="the reset relies on Linux's close()")
def test_the_same_scenario_aborted_with_a_receive_high_water_mark() -> None:
    """The check that the scenario above is the trigger: with the ROUTER's old
    ``ZMQ_RCVHWM`` of 1 000 the very same steps abort libzmq (if a libzmq release fixes the
    assertion, this fails and the note in links.py can go)."""
    code, output = _scenario("old")
    assert code == -signal.SIGABRT, output
    assert "!_io_error" in output
