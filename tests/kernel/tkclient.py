"""Helpers for the kernel tests: start trellis-kernel on a fresh connection file and talk to it
over raw ZeroMQ (every frame under the test's control), or install a throw-away kernelspec so
that jupyter_client, nbclient, nbconvert and jupyter console can start it.

The kernel's stderr goes to a file; stop() checks that the kernel exited cleanly and that no
sanitizer (AddressSanitizer, LeakSanitizer, UBSan) complained, so the sanitizer build of the
tests catches leaks in the kernel process too.
"""
import hashlib, hmac, json, os, shutil, signal, socket, subprocess, sys, tempfile, time, uuid

import zmq

DELIM = b"<IDS|MSG>"
SANITIZER_MARKERS = ("AddressSanitizer", "LeakSanitizer", "runtime error:", "UndefinedBehavior")


def kernel_binary():
    """The kernel under test: argv[1] of the test script, or $TRELLIS_KERNEL."""
    path = os.environ.get("TRELLIS_KERNEL")
    if not path:
        sys.exit("set TRELLIS_KERNEL to the trellis-kernel binary")
    return path


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def check_stderr(text):
    for marker in SANITIZER_MARKERS:
        if marker in text:
            raise AssertionError("kernel stderr reports a sanitizer error:\n" + text[-4000:])


class Kernel:
    """A kernel process and a raw client: shell, control and stdin DEALERs, an iopub SUB."""

    def __init__(self, history_file=None, ports=None, key=None, extra_args=()):
        self.tmp = tempfile.mkdtemp(prefix="trellis-kernel-test-")
        self.key = (uuid.uuid4().hex if key is None else key).encode()
        p = ports if ports is not None else free_ports(5)
        self.cfg = dict(shell_port=p[0], iopub_port=p[1], stdin_port=p[2], control_port=p[3],
                        hb_port=p[4], ip="127.0.0.1", key=self.key.decode(), transport="tcp",
                        signature_scheme="hmac-sha256", kernel_name="trellis-test")
        self.cf = os.path.join(self.tmp, "kernel.json")
        with open(self.cf, "w") as f:
            json.dump(self.cfg, f)
        env = dict(os.environ)
        env["TRELLIS_HISTORY_FILE"] = history_file or os.path.join(self.tmp, "history.jsonl")
        self.stderr_path = os.path.join(self.tmp, "stderr.txt")
        self.stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen([kernel_binary(), "-f", self.cf, *extra_args], env=env,
                                     stdout=subprocess.DEVNULL, stderr=self.stderr,
                                     start_new_session=True)
        if ports is not None and 0 in ports:
            self._wait_for_ports()
        self.session = uuid.uuid4().hex
        self.ident = self.session.encode()
        self.ctx = zmq.Context()
        self.shell = self._sock(zmq.DEALER, "shell_port")
        self.control = self._sock(zmq.DEALER, "control_port")
        self.stdin = self._sock(zmq.DEALER, "stdin_port")
        self.iopub = self._sock(zmq.SUB, "iopub_port")
        self.iopub.setsockopt(zmq.SUBSCRIBE, b"")
        self.wait_ready()

    def _wait_for_ports(self):
        deadline = time.time() + 10
        while time.time() < deadline:
            with open(self.cf) as f:
                cfg = json.load(f)
            if all(cfg[k] for k in ("shell_port", "iopub_port", "stdin_port", "control_port",
                                    "hb_port")):
                self.cfg = cfg
                return
            time.sleep(0.01)
        raise AssertionError("kernel did not write its ports back")

    def _sock(self, kind, port_key):
        s = self.ctx.socket(kind)
        s.setsockopt(zmq.LINGER, 0)
        if kind == zmq.DEALER:
            s.setsockopt(zmq.IDENTITY, self.ident)
        s.connect("tcp://127.0.0.1:%d" % self.cfg[port_key])
        return s

    # -- messages --------------------------------------------------------------------------

    def sign(self, parts):
        h = hmac.new(self.key, digestmod=hashlib.sha256)
        for x in parts:
            h.update(x)
        return h.hexdigest().encode()

    def frames(self, msg_type, content, msg_id=None, signature=None):
        msg_id = msg_id or uuid.uuid4().hex
        hdr = json.dumps(dict(msg_id=msg_id, session=self.session, username="test",
                              date="2026-01-01T00:00:00.000000Z", msg_type=msg_type,
                              version="5.3")).encode()
        parts = [hdr, b"{}", b"{}", json.dumps(content).encode()]
        sig = self.sign(parts) if signature is None else signature
        return msg_id, [DELIM, sig] + parts

    def send(self, sock, msg_type, content=None, **kw):
        msg_id, frames = self.frames(msg_type, content or {}, **kw)
        sock.send_multipart(frames)
        return msg_id

    def recv(self, sock, timeout=10):
        timeout *= SLOW
        if not sock.poll(int(timeout * 1000)):
            raise TimeoutError("no message within %s s" % timeout)
        frames = sock.recv_multipart()
        i = frames.index(DELIM)
        assert hmac.compare_digest(frames[i + 1], self.sign(frames[i + 2:i + 6])), \
            "kernel sent a bad signature"
        return dict(topic=frames[:i], header=json.loads(frames[i + 2]),
                    parent_header=json.loads(frames[i + 3]), metadata=json.loads(frames[i + 4]),
                    content=json.loads(frames[i + 5]), msg_type=json.loads(frames[i + 2])["msg_type"])

    def reply(self, sock, msg_id, timeout=10):
        """The reply to msg_id on sock (other replies are skipped)."""
        deadline = time.time() + timeout * SLOW
        while True:
            m = self.recv(sock, max(0.01, deadline - time.time()))
            if m["parent_header"].get("msg_id") == msg_id:
                return m

    def no_message(self, sock, wait=0.3):
        return not sock.poll(int(wait * 1000))

    def iopub_until_idle(self, msg_id, timeout=10):
        """Every iopub message whose parent is msg_id, through its status idle."""
        out = []
        deadline = time.time() + timeout * SLOW
        while True:
            m = self.recv(self.iopub, max(0.01, deadline - time.time()))
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            out.append(m)
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                return out

    def execute(self, code, timeout=10, **options):
        content = dict(code=code, silent=False, store_history=True, user_expressions={},
                       allow_stdin=False, stop_on_error=True)
        content.update(options)
        msg_id = self.send(self.shell, "execute_request", content)
        reply = self.reply(self.shell, msg_id, timeout)
        return reply, self.iopub_until_idle(msg_id, timeout)

    def wait_ready(self, timeout=20):
        """kernel_info until the first reply (the SUB may join late: poll until iopub works)."""
        deadline = time.time() + timeout * SLOW
        while time.time() < deadline:
            msg_id = self.send(self.shell, "kernel_info_request")
            if self.shell.poll(200):
                self.reply(self.shell, msg_id)
                break
        else:
            raise AssertionError("kernel never answered kernel_info")
        # iopub is a PUB: wait until our subscription is live.
        while time.time() < deadline:
            msg_id = self.send(self.shell, "kernel_info_request")
            self.reply(self.shell, msg_id)
            if self.iopub.poll(200):
                while self.iopub.poll(50):
                    self.iopub.recv_multipart()
                return
        raise AssertionError("iopub never delivered")

    # -- life --------------------------------------------------------------------------------

    def alive(self):
        return self.proc.poll() is None

    def stderr_text(self):
        if not self.stderr.closed:
            self.stderr.flush()
        with open(self.stderr_path, errors="replace") as f:
            return f.read()

    def stop(self, shutdown=True):
        """Shut the kernel down over control and check it exited cleanly."""
        try:
            if shutdown and self.alive():
                msg_id = self.send(self.control, "shutdown_request", dict(restart=False))
                self.reply(self.control, msg_id)
            rc = self.proc.wait(20)
        finally:
            if self.alive():
                self.proc.kill()
                self.proc.wait()
            self.ctx.destroy(0)
            self.stderr.close()
        text = self.stderr_text()
        check_stderr(text)
        if rc != 0:
            raise AssertionError("kernel exited with %d:\n%s" % (rc, text[-4000:]))
        shutil.rmtree(self.tmp, ignore_errors=True)
        return text


# Waits last this many times longer in a sanitizer build (TRELLIS_SANITIZED=1), where the
# kernel runs several times slower and tests share two cores.
SLOW = 4 if os.environ.get("TRELLIS_SANITIZED") == "1" else 1


def _is_zombie(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


class KernelSpecDir:
    """A temporary JUPYTER_PATH holding a kernelspec named `name` that starts the kernel under
    test with its stderr checked afterwards (see check_logs)."""

    def __init__(self, name="trellis-test", interrupt_mode="message"):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix="trellis-kernelspec-")
        self.log_dir = os.path.join(self.dir, "logs")
        os.makedirs(self.log_dir)
        spec_dir = os.path.join(self.dir, "kernels", name)
        os.makedirs(spec_dir)
        # A shell wrapper so that each kernel's stderr lands in its own file.
        wrapper = os.path.join(spec_dir, "run.sh")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nexec "%s" "$@" 2>"%s/kernel-$$.log"\n' % (kernel_binary(),
                                                                          self.log_dir))
        os.chmod(wrapper, 0o755)
        with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
            json.dump(dict(argv=[wrapper, "-f", "{connection_file}"], display_name="Trellis test",
                           language="python", interrupt_mode=interrupt_mode), f)
        os.environ["JUPYTER_PATH"] = self.dir
        os.environ.setdefault("TRELLIS_HISTORY_FILE", os.path.join(self.dir, "history.jsonl"))

    def read_logs(self):
        """Every kernel's stderr so far, for a failure message."""
        texts = []
        for name in sorted(os.listdir(self.log_dir)):
            with open(os.path.join(self.log_dir, name), errors="replace") as f:
                texts.append("%s:\n%s" % (name, f.read()))
        return "\n".join(texts)

    def check_logs(self):
        for name in os.listdir(self.log_dir):
            with open(os.path.join(self.log_dir, name), errors="replace") as f:
                check_stderr(f.read())

    def kill_leftovers(self):
        """Kill kernels of this spec still running (a client that died without shutting its
        kernel down); returns their pids."""
        left = []
        for name in os.listdir(self.log_dir):
            pid = int(name[len("kernel-"):-len(".log")])
            # A kernel told to shut down may still be exiting (slowly under the sanitizers,
            # which check for leaks at exit): it gets a grace period first.
            deadline = time.time() + 15
            while time.time() < deadline and os.path.exists("/proc/%d" % pid) and \
                    not _is_zombie(pid):
                time.sleep(0.05)
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    if kernel_binary().encode() not in f.read():
                        continue
                os.kill(pid, signal.SIGKILL)
                left.append(pid)
            except OSError:
                pass
        return left

    def cleanup(self):
        self.kill_leftovers()
        shutil.rmtree(self.dir, ignore_errors=True)
