#!/usr/bin/python3
"""What `trellis --events/--perfetto/--report/--eager` tell about a program's tf.functions
(SPEC §4, DESIGN "Programs"): the event stream of a script, a notebook and the prompt, the
retrace causes, the per-call-site report, eager mode, and a program that raises.
Usage: test-cli-events.py PATH/TO/trellis"""
import json
import os
import subprocess
import sys
import tempfile

TRELLIS = sys.argv[1]
failures = 0


def run(args, stdin=None):
    return subprocess.run([TRELLIS] + args, input=stdin, capture_output=True, text=True,
                          timeout=30)


def check(name, ok, detail=""):
    global failures
    print("%s %s" % ("ok" if ok else "FAIL", name))
    if not ok:
        failures += 1
        print("  " + str(detail).replace("\n", "\n  "))


def read_events(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def of_kind(events, kind):
    return [e for e in events if e["kind"] == kind]


# f is called once per line (lines 7-11) so that call sites can be checked; the body prints
# while tracing and tf.prints on every execution.
SCRIPT = """\
import tensorflow as tf
@tf.function
def f(x):
  print("tracing")
  tf.print("x is", x)
  return x + 1
f(tf.constant(1))
f(tf.constant(2))
f(tf.constant(1.5))
f(3)
f(4)
"""
CALL_LINES = [7, 8, 9, 10, 11]
CAUSE_FIRST = "first call"
CAUSE_DTYPE = "arg 'x': dtype float32, traces have int32"
CAUSE_TYPE = "arg 'x': Python value 3, traces have int32 Tensor, shape=()"
# f(4): a Python value again; of the three traces one argument away, the closest is the one
# for another Python value (SPEC §4's example).
CAUSE_VALUE_PREFIX = "arg 'x': Python value 4, traces have 3"

with tempfile.TemporaryDirectory() as tmp:
    script = os.path.join(tmp, "fn.py")
    with open(script, "w") as f:
        f.write(SCRIPT)
    jsonl = os.path.join(tmp, "events.jsonl")
    perfetto = os.path.join(tmp, "trace.json")

    # ---- one run with the three outputs -----------------------------------------------------
    r = run(["--events", jsonl, "--perfetto=" + perfetto, "--report", script])
    program_out = "tracing\nx is 1\nx is 2\ntracing\nx is 1.5\ntracing\nx is 3\ntracing\nx is 4\n"
    check("script-status", r.returncode == 0, r.stderr)
    check("script-output-first", r.stdout.startswith(program_out), r.stdout)

    ev = read_events(jsonl)
    check("events-seq-from-1", [e["seq"] for e in ev] == list(range(1, len(ev) + 1)),
          [e["seq"] for e in ev])
    check("events-ts-monotonic", all(a["ts_ns"] <= b["ts_ns"] for a, b in zip(ev, ev[1:])))
    kinds = [e["kind"] for e in ev]
    for kind in ["cell_start", "function_created", "call", "retrace_cause", "trace_start",
                 "trace_end", "concrete_function_added", "graph_execution_start",
                 "graph_execution_end", "tf_print", "call_end", "cell_end"]:
        check("events-have-" + kind, kind in kinds, kinds)
    check("events-cell-brackets", kinds[0] == "cell_start" and kinds[-1] == "cell_end", kinds)
    check("cell-start-source", ev[0]["cell"] == 1 and ev[0]["text"] == SCRIPT, ev[0])
    check("cell-end-ok", ev[-1]["cell"] == 1 and ev[-1]["ok"] is True and ev[-1]["dur_ns"] > 0,
          ev[-1])
    created = of_kind(ev, "function_created")
    check("function-created", len(created) == 1 and created[0]["function"] == "f", created)

    calls = of_kind(ev, "call")
    check("call-outcomes", [c["outcome"] for c in calls] == ["miss", "hit", "miss", "miss",
                                                              "miss"], calls)
    check("call-sites", [(c["file"], c["line"], c["cell"]) for c in calls] ==
          [(script, n, 1) for n in CALL_LINES], calls)
    check("call-hit-names-trace", calls[1]["concrete_id"] == 1 and calls[1]["candidates"] == 1,
          calls[1])
    ends = of_kind(ev, "call_end")
    check("call-ends", [(c["outcome"], c["line"], c["ok"]) for c in ends] ==
          list(zip(["miss", "hit", "miss", "miss", "miss"], CALL_LINES, [True] * 5)), ends)

    causes = of_kind(ev, "retrace_cause")
    texts = [[c["text"] for c in e["causes"]] for e in causes]
    check("retrace-causes", texts[:3] == [[CAUSE_FIRST], [CAUSE_DTYPE], [CAUSE_TYPE]], texts)
    check("retrace-cause-value", len(texts) == 4 and len(texts[3]) == 1 and
          texts[3][0] == CAUSE_VALUE_PREFIX, texts)
    check("retrace-cause-kinds", [[c["kind"] for c in e["causes"]] for e in causes][:3] ==
          [["first_call"], ["dtype"], ["type"]], causes)
    check("retrace-cause-sites", [e["line"] for e in causes] == [7, 9, 10, 11], causes)

    traces = of_kind(ev, "trace_end")
    check("trace-ends", len(of_kind(ev, "trace_start")) == 4 and len(traces) == 4 and
          all(t["ok"] and t["nodes"] > 0 and t["dur_ns"] > 0 for t in traces), traces)
    added = of_kind(ev, "concrete_function_added")
    check("concrete-functions", [a["concrete_id"] for a in added] == [1, 2, 3, 4] and
          "x: int32 Tensor, shape=()" in added[0]["signature"] and
          "x: float32 Tensor, shape=()" in added[1]["signature"], added)
    check("graph-executions", len(of_kind(ev, "graph_execution_start")) == 5 and
          len(of_kind(ev, "graph_execution_end")) == 5)
    prints = of_kind(ev, "tf_print")
    check("tf-print-events", [(p["text"], p["function"], p["cell"]) for p in prints] ==
          [("x is %s\n" % v, "f", 1) for v in ["1", "2", "1.5", "3", "4"]], prints)

    with open(perfetto) as f:
        doc = json.load(f)
    te = doc.get("traceEvents", [])
    names = {e["name"] for e in te}
    check("perfetto-trace-events", isinstance(te, list) and
          all({"ph", "ts", "pid", "tid"} <= e.keys() for e in te), te[:3])
    check("perfetto-slices", {"cell 1", "f (miss)", "f (hit)", "trace f"} <= names, names)

    report = r.stdout[len(program_out):]
    check("report-header", report.startswith("\n== trellis --report: traced Functions ==\n"),
          report)
    check("report-counts", "5 calls: 1 hit, 4 misses, 0 eager; 4 traces" in report, report)
    for name, line in [("site-7", "%s, line 7: 1 call: 0 hits, 1 miss" % script),
                       ("site-8", "%s, line 8: 1 call: 1 hit, 0 misses" % script),
                       ("first-call", "    " + CAUSE_FIRST + "\n"),
                       ("dtype", "    " + CAUSE_DTYPE + "\n"),
                       ("type", "    " + CAUSE_TYPE + "\n"),
                       ("python-value", "    " + CAUSE_VALUE_PREFIX)]:
        check("report-" + name, line in report, report)

    # ---- --report alone: nothing else is written --------------------------------------------
    r = run(["--report", script])
    check("report-alone", r.returncode == 0 and r.stdout.startswith(program_out) and
          "Function f (" in r.stdout, r.stdout + r.stderr)

    # ---- --eager: the Python body on every call --------------------------------------------
    eager_jsonl = os.path.join(tmp, "eager.jsonl")
    r = run(["--eager", "--events", eager_jsonl, "--report", script])
    check("eager-prints-every-call", r.returncode == 0 and r.stdout.startswith(
        "".join("tracing\nx is %s\n" % v for v in ["1", "2", "1.5", "3", "4"])), r.stdout)
    check("eager-report", "5 calls: 0 hits, 0 misses, 5 eager; 0 traces" in r.stdout, r.stdout)
    ev = read_events(eager_jsonl)
    toggles = of_kind(ev, "eager_mode")
    check("eager-mode-event", len(toggles) == 1 and toggles[0]["enabled"] is True and
          toggles[0]["seq"] < of_kind(ev, "cell_start")[0]["seq"], toggles)
    check("eager-call-outcomes", [c["outcome"] for c in of_kind(ev, "call")] == ["eager"] * 5 and
          [c["line"] for c in of_kind(ev, "call")] == CALL_LINES, of_kind(ev, "call"))
    check("eager-no-traces", not of_kind(ev, "trace_start") and not of_kind(ev, "retrace_cause"))
    check("eager-tf-print", [p["text"] for p in of_kind(ev, "tf_print")] ==
          ["x is %s\n" % v for v in ["1", "2", "1.5", "3", "4"]], of_kind(ev, "tf_print"))
    check("eager-tf-print-names-its-function",
          {p["function"] for p in of_kind(ev, "tf_print")} == {"f"}, of_kind(ev, "tf_print"))

    # ---- a program that raises: outputs are still written, the status kept ------------------
    raising = os.path.join(tmp, "raises.py")
    with open(raising, "w") as f:
        f.write("import tensorflow as tf\nf = tf.function(lambda x: x * 2)\nf(1)\n1 / 0\n")
    raise_jsonl = os.path.join(tmp, "raise.jsonl")
    raise_trace = os.path.join(tmp, "raise.json")
    r = run(["--events", raise_jsonl, "--perfetto", raise_trace, "--report", raising])
    check("raise-status", r.returncode == 1 and "ZeroDivisionError" in r.stderr, r.stderr)
    check("raise-report", "Function <lambda> (" in r.stdout and "first call" in r.stdout,
          r.stdout)
    ev = read_events(raise_jsonl)
    check("raise-cell-end-not-ok", ev[-1]["kind"] == "cell_end" and ev[-1]["ok"] is False, ev[-1])
    check("raise-call-line", [c["line"] for c in of_kind(ev, "call")] == [3])
    with open(raise_trace) as f:
        check("raise-perfetto", "traceEvents" in json.load(f))

    # ---- calls refused by input_signature: calls that raised, counted as rejected -------------
    rejecting = os.path.join(tmp, "rejects.py")
    with open(rejecting, "w") as f:
        f.write("import tensorflow as tf\n"
                "@tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])\n"
                "def g(x):\n  return x + 1\n"
                "g(tf.ones([2]))\n"
                "for bad in [tf.ones([3]), tf.ones([2], tf.int32)]:\n"
                "  try:\n    g(bad)\n  except ValueError:\n    pass\n")
    reject_jsonl = os.path.join(tmp, "rejects.jsonl")
    r = run(["--events", reject_jsonl, "--report", rejecting])
    check("rejected-report", "3 calls: 0 hits, 1 miss, 0 eager, 2 rejected; 1 trace" in r.stdout
          and "line 8: 2 calls: 0 hits, 0 misses, 0 eager, 2 rejected" in r.stdout, r.stdout)
    ev = read_events(reject_jsonl)
    check("rejected-errors", [(e["name"], e.get("reason")) for e in of_kind(ev, "error")] ==
          [("ValueError", "rejected")] * 2, of_kind(ev, "error"))
    check("rejected-no-call-events", len(of_kind(ev, "call")) == 1, of_kind(ev, "call"))

    r = run(["--report", "-c", "import sys; sys.exit(3)"])
    check("sys-exit-status-kept", r.returncode == 3 and "== trellis --report" in r.stdout,
          r.stdout)

    # ---- -c: the unit "<string>", cell 1 -----------------------------------------------------
    c_jsonl = os.path.join(tmp, "c.jsonl")
    r = run(["--events", c_jsonl, "-c",
             "import tensorflow as tf\ng = tf.function(lambda: 7)\nprint(int(g()))"])
    ev = read_events(c_jsonl)
    check("dash-c-events", r.stdout == "7\n" and [(c["file"], c["line"], c["cell"]) for c in
                                                   of_kind(ev, "call")] == [("<string>", 3, 1)],
          (r.stdout, r.stderr, of_kind(ev, "call")))

    # ---- a notebook: one cell per code cell, numbered from 1 --------------------------------
    nb = os.path.join(tmp, "nb.ipynb")
    sources = ["import tensorflow as tf\n@tf.function\ndef g(x):\n  return x * 2\n",
               "y = 1\ng(tf.constant(1))",
               "g(tf.constant([1, 2]))\n"]
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": sources[0]},
             {"cell_type": "markdown", "metadata": {}, "source": "# between"},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": sources[1]},
             {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
              "source": sources[2]}]
    with open(nb, "w") as f:
        json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, f)
    nb_jsonl = os.path.join(tmp, "nb.jsonl")
    r = run(["--events", nb_jsonl, "--report", nb])
    check("notebook-status", r.returncode == 0, r.stderr)
    ev = read_events(nb_jsonl)
    check("notebook-cell-starts", [(e["cell"], e["text"]) for e in of_kind(ev, "cell_start")] ==
          list(zip([1, 2, 3], sources)), of_kind(ev, "cell_start"))
    check("notebook-cell-ends", [(e["cell"], e["ok"]) for e in of_kind(ev, "cell_end")] ==
          [(1, True), (2, True), (3, True)])
    check("notebook-call-sites", [(c["cell"], c["file"], c["line"]) for c in of_kind(ev, "call")]
          == [(2, "<cell 2>", 2), (3, "<cell 3>", 1)], of_kind(ev, "call"))
    check("notebook-shape-cause", [[c["text"] for c in e["causes"]] for e in
                                   of_kind(ev, "retrace_cause")] ==
          [["first call"], ["arg 'x': shape (2,) does not match ()"]])
    check("notebook-report-sites", "<cell 2>, line 2: 1 call" in r.stdout and
          "<cell 3>, line 1: 1 call" in r.stdout, r.stdout)

    # ---- the prompt: each complete unit is a cell -------------------------------------------
    prompt_jsonl = os.path.join(tmp, "prompt.jsonl")
    r = run(["--events", prompt_jsonl],
            stdin="import tensorflow as tf\nh = tf.function(lambda: 1)\nh()\n")
    ev = read_events(prompt_jsonl)
    check("prompt-cells", [e["cell"] for e in of_kind(ev, "cell_start")] == [1, 2, 3] and
          [(c["cell"], c["file"]) for c in of_kind(ev, "call")] == [(3, "<stdin-3>")],
          ev)

    # ---- the command line itself ------------------------------------------------------------
    r = run(["--help"])
    check("help-lists-options", r.returncode == 0 and
          all(o in r.stdout for o in ["--report", "--events=FILE.jsonl", "--perfetto=FILE.json",
                                      "--eager", "-c"]), r.stdout)
    r = run(["--no-such-option", script])
    check("unknown-option-status", r.returncode == 2 and "--no-such-option" in r.stderr, r.stderr)
    r = run(["--events", os.path.join(tmp, "missing", "x.jsonl"), script])
    check("unwritable-events-before-run", r.returncode == 2 and r.stdout == "" and
          "--events" in r.stderr, (r.stdout, r.stderr))
    argv_script = os.path.join(tmp, "argv.py")
    with open(argv_script, "w") as f:
        f.write("import sys\nprint(sys.argv[1:])\n")
    r = run([argv_script, "--report", "--eager"])
    check("options-after-file-are-the-programs", r.stdout == "['--report', '--eager']\n",
          r.stdout)
    r = run(["-c", "import sys; print(sys.argv)", "--report"])
    check("options-after-c-are-the-programs", r.stdout == "['-c', '--report']\n", r.stdout)
    r = subprocess.run([TRELLIS, "-c", "print('\u00e9 \u00fc')"], capture_output=True,
                       env=dict(os.environ, LC_ALL="C"), timeout=30)
    check("dash-c-utf8-in-c-locale", r.stdout == "\u00e9 \u00fc\n".encode(), r)
    r = run(["--", argv_script, "x"])
    check("double-dash-ends-options", r.stdout == "['x']\n", r.stdout + r.stderr)

    # ---- node counts before and after optimisation (issue 6) --------------------------------
    # 10 rounds of tanh(x * 0.5 + 0.1): x, 10 x (Const, Mul, Const, AddV2, Tanh), Identity as
    # traced; x, the two Consts CSE keeps, one fused node and Identity as optimised.
    chain_script = os.path.join(tmp, "chain.py")
    with open(chain_script, "w") as f:
        f.write("import tensorflow as tf\n"
                "@tf.function\n"
                "def chain(x):\n"
                "  for _ in range(10):\n"
                "    x = tf.tanh(x * 0.5 + 0.1)\n"
                "  return x\n"
                "y = chain(tf.ones([2, 2]))\n"
                "print(len(chain.get_concrete_function(tf.ones([2, 2])).graph.as_graph_def().node))\n")
    chain_events = os.path.join(tmp, "chain.jsonl")
    r = run(["--events", chain_events, chain_script])
    check("chain-graph-def-unoptimised", r.returncode == 0 and r.stdout == "52\n",
          r.stdout + r.stderr)
    cev = read_events(chain_events)
    counts = [(e["nodes"], e["nodes_optimized"]) for e in of_kind(cev, "concrete_function_added")]
    check("concrete-function-node-counts", counts == [(52, 5)], counts)
    counts = [(e["nodes"], e["nodes_optimized"]) for e in of_kind(cev, "trace_end")]
    check("trace-end-node-counts", counts == [(52, 5)], counts)

sys.exit(1 if failures else 0)
