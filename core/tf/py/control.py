"""tf.cond, tf.while_loop and tf.map_fn: TensorFlow's functional control flow.

tf-control.c runs this file once, when the module is imported, in a namespace of its own where
`tf` is the module and `_ag` AutoGraph's operators (tf-control.c). Eagerly each function runs
its Python callables as Python would; while a tf.function traces, tf.cond builds an If node
through _ag.cond_flat and tf.while_loop a While node through _ag.while_stmt, the operators
AutoGraph's `if` and `while` use. Nested structures (lists, tuples, namedtuples, dicts) are
flattened to their leaves for those operators and packed again, as tf.nest does.
"""


def _flatten(value):
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _flatten(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _pack(structure, leaves):
    """`leaves` (an iterator) packed into the shape of `structure`."""
    if isinstance(structure, dict):
        packed = {key: _pack(structure[key], leaves) for key in sorted(structure)}
        return type(structure)((key, packed[key]) for key in structure)
    if isinstance(structure, tuple) and hasattr(structure, '_fields'):
        return type(structure)(*[_pack(item, leaves) for item in structure])
    if isinstance(structure, (list, tuple)):
        return type(structure)(_pack(item, leaves) for item in structure)
    return next(leaves)


def _same_structure(a, b, check_types=True):
    """tf.nest.assert_same_structure's test; without check_types a list matches a tuple."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(_same_structure(a[k], b[k], check_types) for k in a))
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        kinds = (list, tuple)
        same_kind = type(a) is type(b) if check_types else \
            isinstance(a, kinds) and isinstance(b, kinds)
        return (same_kind and len(a) == len(b)
                and all(_same_structure(x, y, check_types) for x, y in zip(a, b)))
    return True


def _as_tensor(value):
    if isinstance(value, (bool, int, float)):
        return tf.convert_to_tensor(value)
    return value


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Returns true_fn() if pred is true else false_fn()."""
    if true_fn is None:
        raise TypeError("cond(): 'true_fn' argument required")
    if false_fn is None:
        raise TypeError("cond(): 'false_fn' argument required")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    if not _ag.is_symbolic(pred):
        return true_fn() if pred else false_fn()
    results = []

    def run_true():
        results.append(true_fn())
        return tuple(_flatten(results[0]))

    def run_false():
        results.append(false_fn())
        if not _same_structure(results[0], results[1]):
            raise TypeError(
                'true_fn and false_fn arguments to tf.cond must have the same number, type, and '
                'overall structure of return values.\n\ntrue_fn output: %s\nfalse_fn output: '
                '%s\n\nError details:\nThe two structures don\'t have the same nested structure.'
                % (results[0], results[1]))
        return tuple(_flatten(results[1]))

    flat = _ag.cond_flat(pred, run_true, run_false)
    return _pack(results[0], iter([_as_tensor(v) for v in flat]))


def _loop_leaf(value):
    """A loop variable while tracing: a tensor (Python numbers are converted, as TF does)."""
    if isinstance(value, tf.TensorArray):
        return value
    return tf.convert_to_tensor(value)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeats body while cond is true; returns loop_vars' final values, in their structure."""
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    packed = not isinstance(loop_vars, (list, tuple, dict))
    structure = (loop_vars,) if packed else loop_vars
    leaves = _flatten(structure)
    if not leaves:
        raise ValueError('loop_vars must be a non-empty tuple, list or nested structure')
    if _ag.is_tracing():
        leaves = [_loop_leaf(v) for v in leaves]
    state = leaves + ([tf.constant(0)] if maximum_iterations is not None else [])
    n = len(leaves)

    def args():
        return _pack(structure, iter(state[:n]))

    def call(fn):
        values = args()
        if packed:
            return fn(values[0])
        return fn(values) if isinstance(values, dict) else fn(*values)

    def test():
        more = call(cond)
        if maximum_iterations is None:
            return more
        return tf.logical_and(state[n] < maximum_iterations, more)

    def step():
        out = call(body)
        if packed or (len(structure) == 1 and not isinstance(out, (list, tuple, dict))):
            out = type(structure)([out]) if not packed else (out,)
        if not _same_structure(structure, out, check_types=False):
            raise ValueError(
                "The two structures don't have the same nested structure.\n\nFirst structure: "
                '%s\n\nSecond structure: %s' % (structure, out))
        state[:n] = [_loop_leaf(v) if _ag.is_tracing() else v for v in _flatten(out)]
        if maximum_iterations is not None:
            state[n] = state[n] + 1

    def get_state():
        return tuple(state)

    def set_state(values):
        state[:] = list(values)

    invariants = None
    if shape_invariants is not None:
        given = _flatten((shape_invariants,) if packed else shape_invariants)
        invariants = tuple(tf.TensorShape(s) if isinstance(s, (list, tuple)) else s
                           for s in given) + (None,) * (len(state) - len(given))
    names = tuple('loop_var_%d' % i for i in range(len(state)))
    _ag.while_stmt(test, step, get_state, set_state, names,
                   {'shape_invariants': invariants, 'strict_shapes': True})
    result = _pack(structure, iter(state[:n]))
    return result[0] if packed else result


def _signature_dtype(signature):
    if signature is None:
        return None
    return signature.dtype if hasattr(signature, 'shape') else tf.as_dtype(signature)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """fn applied to each slice of elems along their first dimension, stacked."""
    if fn_output_signature is None:
        fn_output_signature = dtype
    if not callable(fn):
        raise TypeError('The provided function %s is not callable. fn must be callable.'
                        % getattr(fn, '__name__', fn))
    flat = [tf.convert_to_tensor(e) for e in _flatten(elems)]
    if not flat:
        raise ValueError('elems must be a Tensor or (possibly nested) sequence of Tensors. Got '
                         '%s' % (elems,))
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError('Elements in elems must be 1+ dimensional Tensors, not scalars')
    n = flat[0].shape[0]
    for t in flat[1:]:
        if t.shape[0] != n:
            raise ValueError('All elements of elems must have the same first dimension')
    out_structure = elems if fn_output_signature is None else fn_output_signature
    out_dtypes = [t.dtype for t in flat] if fn_output_signature is None else \
        [_signature_dtype(s) for s in _flatten(fn_output_signature)]

    if not _ag.is_tracing():
        results = [fn(_pack(elems, iter([t[i] for t in flat]))) for i in range(n)]
        if not results:
            return _pack(out_structure, iter([tf.zeros([0], d) for d in out_dtypes]))
        if fn_output_signature is None:
            out_structure = results[0]
        columns = zip(*[_flatten(r) for r in results])
        stacked = [tf.stack([tf.convert_to_tensor(v, dtype=d) for v in column])
                   for column, d in zip(columns, out_dtypes)]
        return _pack(out_structure, iter(stacked))

    inputs = [tf.TensorArray(t.dtype, size=n).unstack(t) for t in flat]
    outputs = [tf.TensorArray(d, size=n) for d in out_dtypes]
    shapes = []

    def body(i, tas):
        value = fn(_pack(elems, iter([ta.read(i) for ta in inputs])))
        if not shapes:
            shapes.append(value)
        leaves = _flatten(value)
        if len(leaves) != len(tas):
            raise ValueError('The two structures don\'t have the same nested structure.')
        return i + 1, [ta.write(i, v) for ta, v in zip(tas, leaves)]

    _, tas = while_loop(lambda i, tas: i < n, body, (tf.constant(0), outputs))
    if fn_output_signature is None and shapes:
        out_structure = shapes[0]
    return _pack(out_structure, iter([ta.stack() for ta in tas]))


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """fn applied to each slice of elems along their first dimension, stacked: TensorFlow's
    pfor result, computed as map_fn computes it (its fallback, a while_loop). The batch size is
    the largest first dimension; an element whose first dimension is 1 is broadcast, as pfor's
    gather does. The output structure and dtypes are fn's own (no signature argument)."""
    flat = [tf.convert_to_tensor(e) for e in _flatten(elems)]
    for t in flat:
        if t.shape.rank == 0:
            raise ValueError('Elements in elems must be 1+ dimensional Tensors, not scalars')
    dims = [t.shape[0] for t in flat]
    if None in dims:
        raise NotImplementedError('Trellis needs the first dimension of tf.vectorized_map\'s '
                                  'elems known while tracing')
    n = max(dims) if dims else 0
    for d in dims:
        if d not in (1, n):
            raise tf.errors.InvalidArgumentError(
                None, None, 'Inputs to vectorized_map must have the same first dimension or a '
                'first dimension of 1; got %d and %d' % (d, n))
    flat = [t if t.shape[0] == n else tf.tile(t, [n] + [1] * (t.shape.rank - 1)) for t in flat]
    elems = _pack(elems, iter(flat))
    if not _ag.is_tracing():
        results = [fn(_pack(elems, iter([t[i] for t in flat]))) for i in range(n)]
        if not results:
            raise ValueError('vectorized_map of an empty batch has no output structure')
        columns = zip(*[[tf.convert_to_tensor(v) for v in _flatten(r)] for r in results])
        return _pack(results[0], iter([tf.stack(list(c)) for c in columns]))
    # The output signature: fn traced once on the first slice (the nodes it adds are dead).
    probe = fn(_pack(elems, iter([t[0] for t in flat])))
    signature = _pack(probe, iter([tf.TensorSpec(tf.convert_to_tensor(v).shape,
                                                 tf.convert_to_tensor(v).dtype)
                                   for v in _flatten(probe)]))
    return map_fn(fn, elems, fn_output_signature=signature)


# TensorFlow's own functions run as they are inside a converted function (TF's allowlist).
for _f in (cond, while_loop, map_fn, vectorized_map):
    _f.__autograph_do_not_convert__ = True
