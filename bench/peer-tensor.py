#!/usr/bin/python3
"""The peer side of bench-tensor: NumPy and PyTorch timings, one command at a time.

bench-tensor starts this script once (with /usr/bin/python3, which has Debian's numpy and
torch) and alternates its own measurements with requests on stdin, so that both sides see the
same machine load. It prints "ready" once started; then every request gets one line on stdout:

    add N       -> "ok SECONDS_PER_OP"  NumPy `a + b` on 2x2 float32 arrays, timeit, N loops
    conv-setup T -> "ok"                build the conv2d case in NCHW on T threads, warm up
    conv        -> "ok SECONDS"         one torch.nn.functional.conv2d call
    conv-grad-input  -> "ok SECONDS"    its input's gradient (aten.convolution_backward)
    conv-grad-filter -> "ok SECONDS"    its filter's gradient (aten.convolution_backward)
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
        dy = torch.rand(1, 100, 198, 198, generator=generator) * 2 - 1
        self.torch = torch
        self.conv_args = (x, w)
        self.dy = dy
        with torch.no_grad():
            for _ in range(3):
                torch.nn.functional.conv2d(x, w)
            for mask in ([True, False, False], [False, True, False]):
                self.conv_backward(mask)
        return "ok"

    def conv_backward(self, mask):
        """The gradients `mask` picks (input, weight, bias) of the conv2d case, as autograd
        computes them for torch.nn.functional.conv2d: stride 1, no padding, no bias."""
        x, w = self.conv_args
        return self.torch.ops.aten.convolution_backward(
            self.dy, x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, mask)

    def conv_grad(self, which):
        if self.conv_args is None:
            return "unavailable torch: conv-setup did not succeed"
        mask = [which == "input", which == "filter", False]
        with self.torch.no_grad():
            start = time.perf_counter()
            self.conv_backward(mask)
            return "ok %.9g" % (time.perf_counter() - start)

    def conv(self):
        if self.conv_args is None:
            return "unavailable torch: conv-setup did not succeed"
        with self.torch.no_grad():
            start = time.perf_counter()
            self.torch.nn.functional.conv2d(*self.conv_args)
            return "ok %.9g" % (time.perf_counter() - start)


def main():
    peer = Peer()
    commands = {"add": peer.add, "conv-setup": peer.conv_setup, "conv": peer.conv,
                "conv-grad-input": lambda: peer.conv_grad("input"),
                "conv-grad-filter": lambda: peer.conv_grad("filter")}
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
