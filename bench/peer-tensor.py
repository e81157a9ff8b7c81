#!/usr/bin/python3
"""The peer side of bench-tensor: NumPy and PyTorch timings, one command at a time.

bench-tensor starts this script once (with /usr/bin/python3, which has Debian's numpy and
torch) and alternates its own measurements with requests on stdin, so that both sides see the
same machine load. It prints "ready" once started; then every request gets one line on stdout:

    add N       -> "ok SECONDS_PER_OP"  NumPy `a + b` on 2x2 float32 arrays, timeit, N loops
    conv-setup T -> "ok"                build the conv2d case in NCHW on T threads, warm up
    conv        -> "ok SECONDS"         one torch.nn.functional.conv2d call
    quit        -> (exits)

A peer that cannot run answers "unavailable REASON" instead of "ok ...".
"""
import sys
import time
import timeit

try:
    import numpy
except ImportError as e:
    numpy = None
    numpy_error = str(e)


class Peer:
    def __init__(self):
        self.torch = None
        self.conv_args = None

    def add(self, n):
        if numpy is None:
            return "unavailable NumPy: " + numpy_error
        a = numpy.ones((2, 2), dtype=numpy.float32)
        b = numpy.full((2, 2), 2.0, dtype=numpy.float32)
        seconds = timeit.timeit("a + b", globals={"a": a, "b": b}, number=int(n))
        return "ok %.9g" % (seconds / int(n))

    def conv_setup(self, threads="2"):
        try:
            import torch
        except ImportError as e:
            return "unavailable torch: " + str(e)
        torch.set_num_threads(int(threads))
        generator = torch.Generator().manual_seed(0)
        # The guide's Conv2D(100, 3) on a [1, 200, 200, 100] image, in torch's NCHW layout.
        x = torch.rand(1, 100, 200, 200, generator=generator) * 2 - 1
        w = torch.rand(100, 100, 3, 3, generator=generator) * 2 - 1
        self.torch = torch
        self.conv_args = (x, w)
        with torch.no_grad():
            for _ in range(3):
                torch.nn.functional.conv2d(x, w)
        return "ok"

    def conv(self):
        if self.conv_args is None:
            return "unavailable torch: conv-setup did not succeed"
        with self.torch.no_grad():
            start = time.perf_counter()
            self.torch.nn.functional.conv2d(*self.conv_args)
            return "ok %.9g" % (time.perf_counter() - start)


def main():
    peer = Peer()
    commands = {"add": peer.add, "conv-setup": peer.conv_setup, "conv": peer.conv}
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "quit":
            break
        command = commands.get(words[0])
        try:
            answer = command(*words[1:]) if command else "unavailable unknown command"
        except Exception as e:  # report, never die: the C side waits for one line
            answer = "unavailable %s: %s" % (type(e).__name__, e)
        print(answer.replace("\n", " "), flush=True)


if __name__ == "__main__":
    main()
