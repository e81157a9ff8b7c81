"""The ipykernel peer suite: ipykernel's own message-spec and debugger tests, as Debian installs
them (python3-ipykernel, run by python3-pytest), run against trellis-kernel.

  run-ipykernel-peer.py KERNEL_JSON_IN [PYTEST_ARG...]      (kernel: $TRELLIS_KERNEL)

Extra arguments go to pytest (e.g. -k test_execute while working on one feature); meson's
test passes none.

Nothing of ipykernel's is copied or edited. A temporary JUPYTER_PATH holds the kernelspec
"trellis" made from the build's kernelspec/kernel.json.in with @KERNEL@ = $TRELLIS_KERNEL, and
ipykernel_peer_plugin.py (beside this file, loaded with -p) makes the kernels the tests start
use it (its opening comment says how). Every other place Jupyter, IPython or the kernel writes
to (runtime dir, data and config dirs, HOME, TMPDIR where jupyter_client puts the connection
files, the history file, the working directory) is in the same temporary directory, removed at
the end.

test_kernel_info_request is deselected, saying why: it requires ipykernel's own version numbering
(implementation_version >= 2.1).
Nothing else is left out here; the tests' own skips are theirs and pytest prints their reasons.

The tests send each kernel's stderr to pytest's stdout. pytest runs with --capture=tee-sys,
which captures only what the tests print from Python, so the kernels' output reaches this
script's stream as it happens, next to the test that caused it, and is never dropped with a
passing test's captured output. Every line is scanned for sanitizer reports (tkclient's
markers), and a report fails the run. In a sanitizer build (TRELLIS_SANITIZED=1) the
kernelspec's "env" also names the sanitizer options this test was given (meson's test setup:
ASan, UBSan, LSan with tools/lsan.supp), so the spec says how its kernel runs; jupyter_client
passes its environment on as well.

After pytest, no kernel whose connection file is in the temporary directory may still be
running (after a grace period for a kernel still exiting); leftovers are killed and fail the
run. jupyter_client starts kernels in sessions of their own, so a timeout that kills this
test's process group would miss them: SIGTERM and SIGINT stop pytest and kill them here. The
exit status is non-zero if any test failed or errored, or on leftovers or sanitizer reports;
pytest's summary line is printed again last.
"""
import json, os, re, shutil, signal, subprocess, sys, tempfile, threading, time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from tkclient import SANITIZER_MARKERS  # noqa: E402

TESTS_DIR = "/usr/lib/python3/dist-packages/ipykernel/tests"
TEST_FILES = ["test_message_spec.py", "test_debugger.py"]
DESELECTED = {
    "test_message_spec.py::test_kernel_info_request":
        "it wants implementation_version >= 2.1, ipykernel's own numbering (Trellis's is its own)",
}
KERNEL_NAME = "trellis"
SLOW = 4 if os.environ.get("TRELLIS_SANITIZED") == "1" else 1
SANITIZER_VARS = ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS")


def write_kernelspec(template, jupyter_path, kernel):
    with open(template) as f:
        spec = json.loads(f.read().replace("@KERNEL@", kernel))
    # pytest gets our directory on PYTHONPATH for the plugin; the kernel gets what we were given.
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    if os.environ.get("TRELLIS_SANITIZED") == "1":
        for var in SANITIZER_VARS:
            env[var] = os.environ.get(var, "")
    spec["env"] = env
    spec_dir = os.path.join(jupyter_path, "kernels", KERNEL_NAME)
    os.makedirs(spec_dir)
    with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
        json.dump(spec, f, indent=2)


def our_kernels(kernel, tmp):
    """pids of running kernel processes whose connection file is under tmp."""
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
            with open("/proc/%s/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if argv[0] == kernel and state != "Z" and any(a.startswith(tmp + "/") for a in argv):
            pids.append(int(pid))
    return pids


def kill_leftovers(kernel, tmp, grace):
    deadline = time.time() + grace
    while our_kernels(kernel, tmp) and time.time() < deadline:
        time.sleep(0.1)
    left = our_kernels(kernel, tmp)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return left


class Stopped(Exception):
    pass


def stop(signum, frame):
    raise Stopped(signal.Signals(signum).name)


class Output(threading.Thread):
    """Echoes pytest's output (and the kernels', which share the pipe) line by line, keeping
    pytest's summary line and the lines that carry a sanitizer report. It ends when every
    writer has closed the pipe: pytest and every kernel it started."""

    def __init__(self, pipe):
        super().__init__(daemon=True)
        self.pipe, self.summary, self.sanitizer = pipe, None, []

    def run(self):
        for raw in self.pipe:
            line = raw.decode(errors="replace")
            sys.stdout.write(line)
            sys.stdout.flush()
            # pytest's last line: "==== 3 failed, 20 passed, 1 deselected in 12.3s ===="
            if re.match(r"^=+ .* in [0-9.]+s\b.*=+$", line):
                self.summary = line.strip().strip("=").strip()
            if any(m in line for m in SANITIZER_MARKERS):
                self.sanitizer.append(line.rstrip())


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: run-ipykernel-peer.py KERNEL_JSON_IN [PYTEST_ARG...]  "
                 "(kernel: $TRELLIS_KERNEL)")
    kernel = os.path.abspath(os.environ["TRELLIS_KERNEL"])
    tmp = tempfile.mkdtemp(prefix="trellis-ipykernel-peer-")
    dirs = {name: os.path.join(tmp, name)
            for name in ("jupyter", "data", "config", "runtime", "home", "ipython", "tmp",
                         "work")}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    write_kernelspec(sys.argv[1], dirs["jupyter"], kernel)

    env = dict(os.environ)
    env.update(
        TRELLIS_KERNEL=kernel, TRELLIS_PEER_KERNEL_NAME=KERNEL_NAME,
        JUPYTER_PATH=dirs["jupyter"], JUPYTER_DATA_DIR=dirs["data"],
        JUPYTER_CONFIG_DIR=dirs["config"], JUPYTER_RUNTIME_DIR=dirs["runtime"],
        HOME=dirs["home"], XDG_DATA_HOME=os.path.join(dirs["home"], ".local", "share"),
        XDG_CONFIG_HOME=os.path.join(dirs["home"], ".config"),
        XDG_CACHE_HOME=os.path.join(dirs["home"], ".cache"), IPYTHONDIR=dirs["ipython"],
        TMPDIR=dirs["tmp"], TRELLIS_HISTORY_FILE=os.path.join(tmp, "history.jsonl"),
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONPATH=os.pathsep.join([here] + ([os.environ["PYTHONPATH"]]
                                             if os.environ.get("PYTHONPATH") else [])))
    env.pop("JUPYTER_PREFER_ENV_PATH", None)

    # Node ids (and so --deselect) are relative to the rootdir, which is theirs.
    args = ["/usr/bin/python3", "-m", "pytest", "-p", "ipykernel_peer_plugin",
            "-p", "no:cacheprovider", "--rootdir", TESTS_DIR, "--capture=tee-sys", "-v", "-rfEs",
            "--tb=short"]
    for test, reason in DESELECTED.items():
        print("deselected: %s: %s" % (test, reason))
        args += ["--deselect", test]
    args += sys.argv[2:] + [os.path.join(TESTS_DIR, f) for f in TEST_FILES]
    sys.stdout.flush()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    rc, failed, proc, output = 1, True, None, None
    try:
        proc = subprocess.Popen(args, env=env, cwd=dirs["work"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        output = Output(proc.stdout)
        output.start()
        rc = proc.wait()
        failed = rc != 0
        left = kill_leftovers(kernel, tmp, 15 * SLOW)
        if left:
            print("FAIL: kernel processes left running after pytest (killed): %s" % left)
            failed = True
        output.join(10)
        if output.sanitizer:
            print("FAIL: sanitizer reports in the kernels' output:\n  " +
                  "\n  ".join(output.sanitizer))
            failed = True
    except Stopped as e:
        print("stopped by %s" % e)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if proc and proc.poll() is None:
            proc.kill()
            proc.wait()
        kill_leftovers(kernel, tmp, 0)
        shutil.rmtree(tmp, ignore_errors=True)
    summary = output.summary if output else None
    print("ipykernel peer suite (pytest exit %d): %s" % (rc, summary or "no summary line"))
    sys.exit((rc or 1) if failed else 0)


if __name__ == "__main__":
    main()
