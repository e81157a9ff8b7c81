#!/usr/bin/python3
"""trellis-kernel against ipykernel: start-up and the execute round trip, one run.

Both kernels are started and driven the same way, alternating A B A B so that background load
hits both alike, by a raw ZeroMQ client that signs every message and checks every signature.

Start-up is the time from spawning the kernel to the first kernel_info_reply. The client's
sockets connect before the kernel exists (as a frontend's do), so the first TCP connect is
refused and ZeroMQ tries again after its reconnect interval. That interval is measured at two
settings:
  - ZeroMQ's default (100 ms plus up to 100 ms of jitter): what a default client sees; any
    kernel, however fast, takes at least the interval here;
  - 1 ms: the kernel's own start-up, with the client's retry interval out of the way.

The round trip is an execute_request of CODE until both its execute_reply and its status idle
arrived, after warm-up: p50 and p99 over every sample.

Prints one line per kernel and setting, then the ratios ipykernel / Trellis (above 1: Trellis
is faster), and the targets (start-up and p50 at least 10x) met or not.
Usage: bench-kernel.py --trellis BUILD/kernel/trellis-kernel [--starts N] [--execs N]
       [--rounds N] [--code CODE]
"""
import argparse
import hashlib
import hmac
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

import zmq

DELIM = b"<IDS|MSG>"
TARGET = 10.0
DEFAULT_RECONNECT_MS = 100


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Session:
    """One kernel process and a client: shell and control DEALERs, an iopub SUB."""

    def __init__(self, argv, tmp, reconnect_ms):
        self.key = uuid.uuid4().hex.encode()
        self.session = uuid.uuid4().hex
        p = free_ports(5)
        cfg = dict(shell_port=p[0], iopub_port=p[1], stdin_port=p[2], control_port=p[3],
                   hb_port=p[4], ip="127.0.0.1", key=self.key.decode(), transport="tcp",
                   signature_scheme="hmac-sha256", kernel_name="bench")
        self.cf = os.path.join(tmp, "kernel-%s.json" % self.session)
        with open(self.cf, "w") as f:
            json.dump(cfg, f)
        self.argv = [a.replace("{connection_file}", self.cf) for a in argv]
        self.ctx = zmq.Context()

        def connect(kind, port):
            s = self.ctx.socket(kind)
            s.setsockopt(zmq.LINGER, 0)
            s.setsockopt(zmq.RECONNECT_IVL, reconnect_ms)
            if kind == zmq.SUB:
                s.setsockopt(zmq.SUBSCRIBE, b"")
            s.connect("tcp://127.0.0.1:%d" % port)
            return s
        self.shell = connect(zmq.DEALER, p[0])
        self.iopub = connect(zmq.SUB, p[1])
        self.control = connect(zmq.DEALER, p[3])
        self.proc = None

    def sign(self, parts):
        h = hmac.new(self.key, digestmod=hashlib.sha256)
        for part in parts:
            h.update(part)
        return h.hexdigest().encode()

    def send(self, sock, msg_type, content):
        msg_id = uuid.uuid4().hex
        header = json.dumps(dict(msg_id=msg_id, session=self.session, username="bench",
                                 date="2026-01-01T00:00:00.000000Z", msg_type=msg_type,
                                 version="5.3")).encode()
        parts = [header, b"{}", b"{}", json.dumps(content).encode()]
        sock.send_multipart([DELIM, self.sign(parts)] + parts)
        return msg_id

    def recv(self, sock):
        frames = sock.recv_multipart()
        i = frames.index(DELIM)
        if not hmac.compare_digest(frames[i + 1], self.sign(frames[i + 2:i + 6])):
            raise RuntimeError("a message with a bad signature")
        return json.loads(frames[i + 2]), json.loads(frames[i + 3]), frames[i + 5]

    def start(self):
        """Spawn the kernel; seconds until its first kernel_info_reply."""
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.send(self.shell, "kernel_info_request", {})
        while time.perf_counter() - t0 < 60:
            if self.shell.poll(20):
                header, _, _ = self.recv(self.shell)
                if header["msg_type"] == "kernel_info_reply":
                    return time.perf_counter() - t0
            else:
                self.send(self.shell, "kernel_info_request", {})
        raise RuntimeError("no kernel_info_reply within 60 s from %s" % self.argv)

    def execute(self, code):
        """Seconds from sending an execute_request to having its reply and its idle."""
        t0 = time.perf_counter()
        msg_id = self.send(self.shell, "execute_request", dict(
            code=code, silent=False, store_history=True, user_expressions={}, allow_stdin=False,
            stop_on_error=True))
        poller = zmq.Poller()
        poller.register(self.shell, zmq.POLLIN)
        poller.register(self.iopub, zmq.POLLIN)
        replied = idle = False
        while not (replied and idle):
            ready = dict(poller.poll(10000))
            if not ready:
                raise RuntimeError("execute timed out")
            if self.shell in ready:
                header, parent, _ = self.recv(self.shell)
                replied |= (parent.get("msg_id") == msg_id
                            and header["msg_type"] == "execute_reply")
            if self.iopub in ready:
                header, parent, content = self.recv(self.iopub)
                idle |= (parent.get("msg_id") == msg_id and header["msg_type"] == "status"
                         and json.loads(content).get("execution_state") == "idle")
        return time.perf_counter() - t0

    def stop(self):
        try:
            self.send(self.control, "shutdown_request", dict(restart=False))
            self.proc.wait(10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        self.ctx.destroy(0)


def percentile(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p / 100.0
    f = int(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trellis", required=True, help="the trellis-kernel binary")
    ap.add_argument("--starts", type=int, default=7)
    ap.add_argument("--execs", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--code", default="pass")
    args = ap.parse_args()
    try:
        import ipykernel  # noqa: F401 (the peer must be importable)
    except ImportError:
        print("bench-kernel: skipped: ipykernel is not installed (apt-get install "
              "python3-ipykernel)")
        return 0
    kernels = {
        "trellis-kernel": [args.trellis, "-f", "{connection_file}"],
        "ipykernel": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
    }
    settings = {"default": DEFAULT_RECONNECT_MS, "1 ms": 1}
    starts = {(k, s): [] for k in kernels for s in settings}
    lat = {k: [] for k in kernels}
    tmp = tempfile.mkdtemp(prefix="bench-kernel-")
    env_history = os.environ.get("TRELLIS_HISTORY_FILE")
    os.environ["TRELLIS_HISTORY_FILE"] = os.path.join(tmp, "history.jsonl")
    try:
        for _ in range(args.starts):
            for setting, ivl in settings.items():
                for name, argv in kernels.items():
                    s = Session(argv, tmp, ivl)
                    starts[(name, setting)].append(s.start())
                    s.stop()
        for _ in range(args.rounds):
            for name, argv in kernels.items():
                s = Session(argv, tmp, DEFAULT_RECONNECT_MS)
                s.start()
                time.sleep(0.3)
                while s.iopub.poll(0):
                    s.iopub.recv_multipart()
                for _ in range(30):
                    s.execute(args.code)
                lat[name] += [s.execute(args.code) for _ in range(args.execs)]
                s.stop()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if env_history is None:
            os.environ.pop("TRELLIS_HISTORY_FILE", None)
    for setting in settings:
        for name in kernels:
            print("start-up, client reconnect %-8s %-15s %8.1f ms (median of %d)"
                  % (setting + ":", name, statistics.median(starts[(name, setting)]) * 1e3,
                     len(starts[(name, setting)])))
    for name in kernels:
        print("execute %-7r round trip: %-15s p50 %7.0f us  p99 %7.0f us  (%d samples)"
              % (args.code, name, percentile(lat[name], 50) * 1e6,
                 percentile(lat[name], 99) * 1e6, len(lat[name])))
    ratios = {}
    for setting in settings:
        ratios["start-up, reconnect " + setting] = (
            statistics.median(starts[("ipykernel", setting)])
            / statistics.median(starts[("trellis-kernel", setting)]))
    for p in (50, 99):
        ratios["round trip p%d" % p] = (percentile(lat["ipykernel"], p)
                                        / percentile(lat["trellis-kernel"], p))
    for what, r in ratios.items():
        print("ratio ipykernel / Trellis, %-27s %6.1fx" % (what + ":", r))
    for what in ("start-up, reconnect 1 ms", "start-up, reconnect default", "round trip p50"):
        print("target %s >= %.0fx: %s (%.1fx)" % (what, TARGET,
                                                  "met" if ratios[what] >= TARGET else "NOT MET",
                                                  ratios[what]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
