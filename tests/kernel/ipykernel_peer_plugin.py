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

After the start it makes one kernel_info round trip of its own and drops what comes before its
reply on shell and its idle on iopub: the answers to jupyter_client's start-up probes, one
kernel_info_request a second until a reply, so several for a kernel slower to start than that
(the sanitizer build). Left queued, they would meet the first test's flush_channels, which
validates every stray message and so holds a probe's kernel_info_reply to ipykernel's own
version numbering, the one check run-ipykernel-peer.py deselects. The kernel answers shell
requests in order, so this waits exactly as long as needed. Nothing but kernel_info replies
and status messages may come before: anything else fails the start.

This was chosen over a kernelspec named "python3" that would shadow ipykernel's: a spec with a
false name, resolved by search-path precedence, would run ipykernel silently the day the
precedence changed; here the name is our own and the kernel is checked at every start.
"""
import os
import time

import jupyter_client.manager as manager

KERNEL_NAME = os.environ["TRELLIS_PEER_KERNEL_NAME"]
KERNEL_BINARY = os.environ["TRELLIS_KERNEL"]
DEFAULT_NAMES = ("python", "python3")  # jupyter_client's default and what it stands for
SETTLE_TIMEOUT = 60 * (4 if os.environ.get("TRELLIS_SANITIZED") == "1" else 1)

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
    try:
        settle(kc)
    except BaseException:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
        raise
    return km, kc


def settle(kc):
    """Drops the replies to jupyter_client's start-up probes (see the opening comment)."""
    msg_id = kc.kernel_info()
    deadline = time.monotonic() + SETTLE_TIMEOUT
    for channel, last in ((kc.get_shell_msg, "kernel_info_reply"), (kc.get_iopub_msg, "status")):
        while True:
            msg = channel(timeout=max(0.1, deadline - time.monotonic()))
            if msg["msg_type"] not in ("kernel_info_reply", "status"):
                raise AssertionError("before any test, the kernel sent %s" % msg)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == last and \
                    (last != "status" or msg["content"]["execution_state"] == "idle"):
                break


manager.start_new_kernel = start_new_kernel


def pytest_report_header(config):
    return "kernel under test: kernelspec %r -> %s" % (KERNEL_NAME, KERNEL_BINARY)
