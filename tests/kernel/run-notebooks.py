"""Run every notebook under a directory through the real kernel (nbclient) and compare each
code cell's outputs with the outputs stored in the notebook.

  run-notebooks.py NOTEBOOK_DIR          (kernel: $TRELLIS_KERNEL)

A cell whose output cannot be compared (timings, addresses) opts out with the tag
`trellis-nocompare` and a reason in its metadata: {"trellis": {"nocompare_reason": "…"}}; a tag
without a reason is an error. Outputs are compared without metadata and execution counts,
consecutive stream outputs merged (as nbclient merges them), errors by ename and evalue, and
the name of a cell's code file in printed tracebacks read as "<cell>".
Everything left out is said: each cell not compared is printed with its reason, and the exit
status is 77 (skipped) with the reason printed when the directory holds no notebook.
"""
import glob, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tkclient import KernelSpecDir  # noqa: E402

import nbformat  # noqa: E402
from nbclient import NotebookClient  # noqa: E402

TAG = "trellis-nocompare"


# A cell's code file: "<cell N>" (the command line) or the path the kernel compiles it under
# for debuggers (kernel-cellfile.h: <tmp>/trellis_<pid>/<hash>.py). Tracebacks that user code
# prints (traceback.print_exc) name it; the number and the path differ from run to run.
CELL_FILE = re.compile(r"<cell \d+>|(?:/[^\s\"'/]+)*/trellis_\d+/\d+\.py|(?<=\()\d+\.py(?=, line)")


def text(value):
    return CELL_FILE.sub("<cell>", "".join(value) if isinstance(value, list) else value)


def normalise(outputs):
    out = []
    for o in outputs:
        kind = o["output_type"]
        if kind == "stream":
            if out and out[-1]["output_type"] == "stream" and out[-1]["name"] == o["name"]:
                out[-1]["text"] += text(o["text"])
            else:
                out.append(dict(output_type="stream", name=o["name"], text=text(o["text"])))
        elif kind == "error":
            out.append(dict(output_type="error", ename=o["ename"], evalue=text(o["evalue"])))
        else:
            out.append(dict(output_type=kind,
                            data={k: text(v) for k, v in o.get("data", {}).items()}))
    return out


def check(path):
    """A list of differences (empty when the notebook reproduces its stored outputs); the cells
    left out are printed with their reasons."""
    stored = nbformat.read(path, as_version=4)
    run = nbformat.read(path, as_version=4)
    # Deliberate errors are tagged raises-exception; any other error fails the notebook.
    client = NotebookClient(run, kernel_name="trellis", timeout=300, allow_errors=False,
                            resources={"metadata": {"path": os.path.dirname(path)}})
    client.execute()
    problems = []
    if len(stored.cells) != len(run.cells):
        problems.append("%d cells stored, %d after running" % (len(stored.cells), len(run.cells)))
    for i, (want, got) in enumerate(zip(stored.cells, run.cells)):
        if want.cell_type != "code":
            continue
        if TAG in want.metadata.get("tags", []):
            reason = want.metadata.get("trellis", {}).get("nocompare_reason")
            if not reason:
                problems.append("cell %d: tag %s without metadata.trellis.nocompare_reason"
                                % (i, TAG))
            else:
                print("  skipped cell %d of %s (not compared): %s"
                      % (i, os.path.basename(path), reason))
            continue
        a, b = normalise(want.outputs), normalise(got.outputs)
        if a != b:
            problems.append("cell %d:\n  source: %r\n  stored: %r\n  got:    %r"
                            % (i, want.source[:200], a, b))
    return problems


def main():
    root = sys.argv[1]
    paths = sorted(p for p in glob.glob(os.path.join(root, "**", "*.ipynb"), recursive=True)
                   if ".ipynb_checkpoints" not in p)
    if not paths:
        print("skipped: no notebook in %s yet" % root)
        return 77
    spec = KernelSpecDir("trellis")
    failed = 0
    for path in paths:
        problems = check(path)
        print("%s %s" % ("FAIL" if problems else "ok  ", os.path.relpath(path, root)))
        for p in problems:
            print("  " + p)
        failed += bool(problems)
    spec.check_logs()
    spec.cleanup()
    print("%d of %d notebooks reproduce their outputs" % (len(paths) - failed, len(paths)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
