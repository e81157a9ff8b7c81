"""tf.strings: operations on string tensors, over core/tensor's string kernels (ops-strings.c).

Runs last in the namespace tf-strings.c made (see ragged.py). Each function converts its
arguments and applies its op with `_op`, which runs it eagerly or adds it to the graph being
traced. A RaggedTensor argument is handled as TensorFlow's ragged dispatch does: the op runs on
its flat values and the result keeps its row partitions. The splits return a RaggedTensor for
inputs of rank 1 or more, and a plain tensor of the pieces for a scalar.

Functions of tf and tf.math also accept RaggedTensors, as TensorFlow's API dispatch makes them:
the elementwise ones (tf.add(ragged, 3), tf.math.square(ragged)) run on the flat values; the
reductions, tf.concat and tf.tile on ragged arguments are ragged.py's (eager). The functions
stay C functions: only a call that fails in C with a RaggedTensor among its arguments reaches
the dispatcher registered here (tf._set_api_dispatcher, tf-ops.c), so plain calls pay nothing.
"""

import functools as _functools

_UNITS = {"BYTE": 0, "UTF8_CHAR": 1}
_SPLIT_SEP, _SPLIT_BYTES, _SPLIT_CHARS, _SPLIT_CODEPOINTS = 0, 1, 2, 3


def _on_flat(fn, value):
    """fn on a tensor, or on a RaggedTensor's flat values keeping its rows."""
    if isinstance(value, RaggedTensor):
        return value.with_flat_values(fn(value.flat_values))
    return fn(value)


def _unit(unit):
    if unit not in _UNITS:
        raise tf.errors.InvalidArgumentError(
            None, None, "Value for attr 'unit' of \"%s\" is not in the list of allowed values: "
            "\"BYTE\", \"UTF8_CHAR\"" % unit)
    return _UNITS[unit]


def length(input, unit="BYTE", name=None):
    """The length of each string, in bytes or UTF-8 characters."""
    mode = _unit(unit)
    return _on_flat(lambda x: _op("StringLength", (x,), (tf.string,), mode=mode, name=name),
                    input)


def upper(input, encoding="", name=None):
    """Each string with its ASCII letters in upper case."""
    return _on_flat(lambda x: _op("StringUpper", (x,), (tf.string,), name=name), input)


def lower(input, encoding="", name=None):
    """Each string with its ASCII letters in lower case."""
    return _on_flat(lambda x: _op("StringLower", (x,), (tf.string,), name=name), input)


def strip(input, name=None):
    """Each string without leading and trailing whitespace."""
    return _on_flat(lambda x: _op("StringStrip", (x,), (tf.string,), name=name), input)


def substr(input, pos, len, unit="BYTE", name=None):
    """The substring of `len` bytes (or characters) of each string, from `pos`."""
    mode = _unit(unit)
    return _on_flat(lambda x: _op("Substr", (x, pos, len), (tf.string, tf.int32, tf.int32),
                                  mode=mode, name=name), input)


def to_number(input, out_type=tf.float32, name=None):
    """Each string read as a number of `out_type`."""
    return _on_flat(lambda x: _op("StringToNumber", (x,), (tf.string,), dtype=out_type,
                                  name=name), input)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="",
              name=None):
    """Each number as a string: TensorFlow's printf-style formatting of AsString."""
    if precision == -1 and not scientific and not shortest and width == -1 and not fill:
        return _on_flat(lambda x: _op("AsString", (x,), name=name), input)
    if scientific and shortest:
        raise tf.errors.InvalidArgumentError(
            None, None, "Cannot select both scientific and shortest notation")
    spec = "%" + (fill if fill in ("0", "-", " ") else "") + \
        (str(width) if width > -1 else "") + \
        ("." + str(precision) if precision > -1 else "")

    def formatted(x):
        x = tf.convert_to_tensor(x)
        conv = "g" if shortest else "e" if scientific else "f"
        if x.dtype.is_integer:
            conv = "d"
        values = x.numpy()
        import numpy as np
        out = np.empty(values.shape, dtype=object)
        for idx in np.ndindex(*values.shape):
            v = values[idx]
            out[idx] = ((spec + conv) % (int(v) if conv == "d" else float(v))).encode()
        return tf.constant(out.tolist() if values.shape else out[()], tf.string)

    return _on_flat(formatted, input)


def regex_full_match(input, pattern, name=None):
    """Whether each whole string matches the regular expression `pattern`."""
    return _on_flat(lambda x: _op("RegexFullMatch", (x, pattern), (tf.string, tf.string),
                                  name=name), input)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Each string with the matches of `pattern` (or only the first) replaced by `rewrite`
    (\\1 names a group)."""
    return _on_flat(lambda x: _op("RegexReplace", (x, pattern, rewrite),
                                  (tf.string, tf.string, tf.string), flag=replace_global,
                                  name=name), input)


def join(inputs, separator="", name=None):
    """The strings of `inputs` (tensors of one shape, or scalars) joined elementwise."""
    inputs = list(inputs)
    if not inputs:
        raise tf.errors.InvalidArgumentError(None, None, "Expected at least one input")
    if any(isinstance(x, RaggedTensor) for x in inputs):
        return map_flat_values(join, inputs, separator)
    result = tf.convert_to_tensor(inputs[0], dtype=tf.string)
    for x in inputs[1:]:
        if separator:
            result = tf.math.add(result, separator)
        result = tf.math.add(result, tf.convert_to_tensor(x, dtype=tf.string))
    return result


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings of `inputs` joined along `axis` (all axes when None)."""
    if isinstance(inputs, RaggedTensor):
        if axis in (1, -1) and inputs.ragged_rank == 1:
            rows = [reduce_join(inputs[i], 0, separator=separator) for i in range(len(inputs))]
            joined = tf.stack(rows) if rows else tf.constant([], tf.string)
            return tf.expand_dims(joined, 1) if keepdims else joined
        inputs = inputs.to_tensor()
    if axis is not None and not isinstance(axis, (list, tuple)):
        axis = [int(axis)]
    return _op("ReduceJoin", (inputs, separator), (tf.string, tf.string), axes=axis,
               keepdims=keepdims, name=name)


def _split(input, mode, sep="", maxsplit=-1, name=None):
    """The pieces of each string of `input`: a tensor for a scalar, a RaggedTensor (one more
    ragged dimension) otherwise."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(_split(input.flat_values, mode, sep, maxsplit, name))
    input = tf.convert_to_tensor(input, dtype_hint=tf.string)
    values = _op("StringSplitV2", (input, sep, maxsplit), (tf.string, tf.string, tf.int64),
                 mode=mode, name=name)
    rank = input.shape.rank
    if rank == 0:
        return values
    splits = _op("StringSplitV2", (input, sep, maxsplit), (tf.string, tf.string, tf.int64),
                 mode=mode, flag=True)
    result = RaggedTensor(values, splits, internal=True)
    # The outer dimensions of a matrix or more are uniform rows of the flattened strings.
    dims = list(input.shape)
    for d in range(rank - 1, 0, -1):
        width, count = dims[d], 1
        for outer in dims[:d]:
            count *= outer
        uniform = tf.range(0, count * width + 1, max(width, 1), dtype=tf.int64) if width else \
            tf.zeros([count + 1], tf.int64)
        result = RaggedTensor(result, uniform, internal=True)
    return result


def split(input, sep=None, maxsplit=-1, name=None):
    """Splits each string at `sep` (at runs of whitespace when None) into a RaggedTensor."""
    if sep is None:
        sep = ""
    if not isinstance(sep, (str, bytes)) and not isinstance(sep, tf.Tensor):
        raise ValueError("sep must be a string")
    return _split(input, _SPLIT_SEP, sep, maxsplit, name)


def bytes_split(input, name=None):
    """Splits each string into its bytes."""
    return _split(input, _SPLIT_BYTES, name=name)


def _check_encoding(encoding):
    if encoding.upper() not in ("UTF-8", "UTF8"):
        raise NotImplementedError(
            f"Trellis decodes UTF-8 only; input_encoding {encoding!r} is not supported")


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """Splits each string into the substrings encoding its characters."""
    _check_encoding(input_encoding)
    return _split(input, _SPLIT_CHARS, name=name)


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,
                   replace_control_characters=False, name=None):
    """Decodes each string into its Unicode code points (int32)."""
    _check_encoding(input_encoding)
    return _split(input, _SPLIT_CODEPOINTS, name=name)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):
    """Encodes rows of code points into strings (eager)."""
    _check_encoding(output_encoding)

    def encode(row):
        return "".join(chr(c) for c in row).encode("utf-8")

    if isinstance(input, RaggedTensor):
        return tf.constant([encode(r) for r in input.to_list()], tf.string)
    value = tf.convert_to_tensor(input).numpy().tolist()
    if value and isinstance(value[0], list):
        return tf.constant([encode(r) for r in value], tf.string)
    return tf.constant(encode(value), tf.string)


def _summarize(value, summarize):
    """A value as tf.strings.format (and tf.print) shows it: nested brackets, elements
    separated by spaces, only the first and last `summarize` of each dimension."""
    import numpy as np
    array = np.asarray(value)

    def element(v):
        if isinstance(v, (bytes, np.bytes_)):
            return v.decode("utf-8", "replace")
        if isinstance(v, (bool, np.bool_)):
            return "1" if v else "0"
        if isinstance(v, (float, np.floating)):
            digits = (6, 9) if array.dtype == np.float32 else (15, 17)
            text = "%.*g" % (digits[0], v)
            if float(text) != float(v):
                text = "%.*g" % (digits[1], v)
            return text
        return str(v)

    def level(a, depth):
        if a.ndim == 0:
            return element(a[()])
        n = a.shape[0]
        if summarize >= 0 and n > 2 * summarize:
            parts = [level(a[i], depth + 1) for i in range(summarize)] + ["..."] + \
                [level(a[i], depth + 1) for i in range(n - summarize, n)]
        else:
            parts = [level(a[i], depth + 1) for i in range(n)]
        sep = " " if a.ndim == 1 else "\n" + " " * (depth + 1)
        return "[" + sep.join(parts) + "]"

    return level(array, 0)


def format(template, inputs, placeholder="{}", summarize=3, name=None):
    """`template` with each `placeholder` replaced by a summary of one input (eager)."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    count = template.count(placeholder)
    if count != len(inputs):
        raise ValueError(f"The template expects {count} tensors, but the inputs only has "
                         f"{len(inputs)}. Please ensure the number of placeholders in template "
                         "matches inputs length.")
    pieces = template.split(placeholder)
    out = pieces[0]
    for value, piece in zip(inputs, pieces[1:]):
        value = tf.convert_to_tensor(value)
        out += _summarize(value.numpy(), summarize) + piece
    return tf.constant(out, tf.string)


# ---- ragged dispatch for tf's elementwise functions ---------------------------------------

_UNARY = ("abs", "negative", "square", "sqrt", "exp", "log", "sin", "cos", "tanh", "sigmoid",
          "logical_not", "floor", "ceil", "round", "sign", "reciprocal", "rsqrt", "log1p",
          "softplus", "relu")
_BINARY = ("add", "subtract", "multiply", "divide", "truediv", "floordiv", "floormod", "mod",
           "maximum", "minimum", "pow", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "logical_and", "logical_or", "squared_difference")


def _ragged_aware(fn):
    @_functools.wraps(fn)
    def dispatch(*args, **kwargs):
        if any(isinstance(a, RaggedTensor) for a in args) or \
                any(isinstance(v, RaggedTensor) for v in kwargs.values()):
            if len(args) >= 2 and (isinstance(args[0], RaggedTensor) or
                                   isinstance(args[1], RaggedTensor)):
                return _binary(lambda x, y: fn(x, y, *args[2:], **kwargs), args[0], args[1])
            return map_flat_values(fn, *args, **kwargs)
        return fn(*args, **kwargs)
    dispatch.__ragged_original__ = fn
    return dispatch


def _ragged_reduction(fn, kind):
    @_functools.wraps(fn)
    def dispatch(input_tensor, *args, **kwargs):
        if isinstance(input_tensor, RaggedTensor):
            bound = dict(zip(("axis", "keepdims", "name"), args), **kwargs)
            return _ragged_reduce(kind, input_tensor, bound.get("axis"),
                                  bool(bound.get("keepdims", False)))
        return fn(input_tensor, *args, **kwargs)
    dispatch.__ragged_original__ = fn
    return dispatch


def _ragged_concat(fn):
    @_functools.wraps(fn)
    def dispatch(values, *args, **kwargs):
        if isinstance(values, (list, tuple)) and any(isinstance(v, RaggedTensor)
                                                     for v in values):
            bound = dict(zip(("axis", "name"), args), **kwargs)
            return _ragged_concat_impl(values, bound["axis"])
        return fn(values, *args, **kwargs)
    dispatch.__ragged_original__ = fn
    return dispatch


def _ragged_tile(fn):
    @_functools.wraps(fn)
    def dispatch(input, *args, **kwargs):
        if isinstance(input, RaggedTensor):
            bound = dict(zip(("multiples", "name"), args), **kwargs)
            return _ragged_tile_impl(input, bound["multiples"])
        return fn(input, *args, **kwargs)
    dispatch.__ragged_original__ = fn
    return dispatch


_REDUCTIONS = {"reduce_sum": "sum", "reduce_prod": "prod", "reduce_max": "max",
               "reduce_min": "min", "reduce_mean": "mean"}


_DISPATCH = {}


def _dispatch(name, args, kwargs):
    """tf._set_api_dispatcher's callable: the C function `name` failed on arguments that include
    a RaggedTensor; the ragged version runs instead, or NotImplemented leaves its error."""
    impl = _DISPATCH.get(name)
    return NotImplemented if impl is None else impl(*args, **kwargs)


def _install_dispatch():
    """The ragged versions of tf's functions, reached only when a call with a RaggedTensor
    argument fails in C (tf-ops.c): a call with plain tensors goes straight to C."""
    for fname, kind in _REDUCTIONS.items():
        _DISPATCH[fname] = _ragged_reduction(getattr(tf, fname), kind)
    _DISPATCH["concat"] = _ragged_concat(tf.concat)
    _DISPATCH["tile"] = _ragged_tile(tf.tile)
    for fname in _UNARY + _BINARY:
        fn = getattr(tf.math, fname, None) or getattr(tf, fname, None) or \
            getattr(tf.nn, fname, None)
        if fn is not None:
            _DISPATCH[fname] = _ragged_aware(fn)
    RaggedTensor._tf_api_dispatch = True
    tf._set_api_dispatcher(_dispatch)


def _export():
    for fn in (length, upper, lower, strip, substr, to_number, as_string, regex_full_match,
               regex_replace, join, reduce_join, split, bytes_split, unicode_split,
               unicode_decode, unicode_encode, format):
        fn.__module__ = "tensorflow.strings"
        setattr(_strings, fn.__name__, fn)
    _install_dispatch()


_export()
