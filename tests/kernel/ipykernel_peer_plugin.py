"""pytest plugin for the ipykernel peer suite (run-ipykernel-peer.py): every kernel that
ipykernel's own tests start is the Trellis kernel under test.

ipykernel's tests (Debian's installed ipykernel/tests, used as they are) start their kernels
through jupyter_client.manager.start_new_kernel, directly or through run_kernel, without naming
a kernel, so jupyter_client's default "python" (the native ipykernel) would run. This plugin
replaces that one function in jupyter_client.manager, before any test module is imported, by
one that asks for $TRELLIS_PEER_KERNEL_NAME (the kernelspec run-ipykernel-peer.py wrote into
its temporary JUPYTER_PATH) whenever the caller asked for the default, and that fails the test
unless the kernel it started is $TRELLIS_KERNEL. Both callers look the function up in the module
at call time (`manager.start_new_kernel(...)`; run_kernel's global), so they get this one.

This was chosen over a kernelspec named "python3" that would shadow ipykernel's: a spec with a
false name, resolved by search-path precedence, would run ipykernel silently the day the
precedence changed; here the name is our own and the kernel is checked at every start.
"""
import os

import jupyter_client.manager as manager

KERNEL_NAME = os.environ["TRELLIS_PEER_KERNEL_NAME"]
KERNEL_BINARY = os.environ["TRELLIS_KERNEL"]
DEFAULT_NAMES = ("python", "python3")  # jupyter_client's default and what it stands for

_jupyter_start_new_kernel = manager.start_new_kernel


def start_new_kernel(startup_timeout=60, kernel_name="python", **kwargs):
    if kernel_name in DEFAULT_NAMES:
        kernel_name = KERNEL_NAME
    km, kc = _jupyter_start_new_kernel(startup_timeout=startup_timeout, kernel_name=kernel_name,
                                       **kwargs)
    argv = km.kernel_spec.argv
    if kernel_name == KERNEL_NAME and (not argv or argv[0] != KERNEL_BINARY):
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise AssertionError("kernelspec %r runs %r, not %s" % (kernel_name, argv, KERNEL_BINARY))
    return km, kc


manager.start_new_kernel = start_new_kernel


def pytest_report_header(config):
    return "kernel under test: kernelspec %r -> %s" % (KERNEL_NAME, KERNEL_BINARY)
