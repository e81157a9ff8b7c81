"""tf.RaggedTensor and tf.ragged: tensors with rows of different lengths.

tf-strings.c runs this file when the module is imported, in a namespace it shares with
sparse.py and strings.py, where `tf` is the module, `_op` applies a core/tensor op by its
TensorFlow type, and `_ragged`, `_sparse`, `_strings` are the submodules to fill.

A RaggedTensor is, as in TensorFlow, a `values` tensor (or a RaggedTensor, for more ragged
dimensions) cut into rows by `row_splits`: row i is values[row_splits[i]:row_splits[i + 1]].
Everything here is built from ordinary tensors, so what works on them eagerly and in a trace
works on ragged ones; to_list, printing and to_tensor read concrete values (eager code).
"""


class RaggedTensor:
    """Represents a ragged tensor."""

    def __init__(self, values, row_splits, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._row_splits = row_splits

    # ---- factories -------------------------------------------------------------------------

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Creates a RaggedTensor with rows partitioned by `row_splits`."""
        values = _convert(values)
        row_splits = tf.convert_to_tensor(row_splits, dtype_hint=tf.int64)
        if row_splits.dtype not in (tf.int32, tf.int64):
            raise ValueError("dtype mismatch: row_splits must be int32 or int64")
        if validate and not _is_symbolic(row_splits):
            splits = [int(s) for s in row_splits.numpy()]
            if row_splits.shape.rank != 1:
                raise ValueError(f"Shape {row_splits.shape} must have rank 1")
            if not splits or splits[0] != 0:
                raise tf.errors.InvalidArgumentError(
                    None, None, "Arguments to from_row_splits do not form a valid RaggedTensor:"
                    "zero")
            if any(b < a for a, b in zip(splits, splits[1:])):
                raise tf.errors.InvalidArgumentError(
                    None, None, "Arguments to from_row_splits do not form a valid RaggedTensor:"
                    "monotonic")
            if splits[-1] != _nvals(values):
                raise tf.errors.InvalidArgumentError(
                    None, None, "Arguments to from_row_splits do not form a valid RaggedTensor:"
                    "nvals")
        return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Creates a RaggedTensor with rows partitioned by `row_lengths`."""
        values = _convert(values)
        lengths = tf.convert_to_tensor(row_lengths, dtype_hint=tf.int64)
        total = 0
        splits = [0]
        for n in lengths.numpy().tolist():
            total += n
            splits.append(total)
        splits = tf.constant(splits, lengths.dtype)
        if validate:
            if total != _nvals(values):
                raise tf.errors.InvalidArgumentError(
                    None, None, "Arguments to _from_row_partition do not form a valid "
                    "RaggedTensor")
        return cls(values, splits, internal=True)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Creates a RaggedTensor with rows partitioned by `value_rowids`."""
        values = _convert(values)
        rowids = [int(r) for r in tf.convert_to_tensor(value_rowids, dtype_hint=tf.int64).numpy()]
        if nrows is None:
            nrows = rowids[-1] + 1 if rowids else 0
        nrows = int(nrows)
        if any(b < a for a, b in zip(rowids, rowids[1:])):
            raise tf.errors.InvalidArgumentError(
                None, None, "Arguments to from_value_rowids do not form a valid RaggedTensor")
        splits = [0] * (nrows + 1)
        for r in rowids:
            splits[r + 1] += 1
        for i in range(nrows):
            splits[i + 1] += splits[i]
        return cls(values, tf.constant(splits, tf.int64), internal=True)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = _convert(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None):
        """Converts a dense tensor (each row cut to `lengths`, or before its trailing
        `padding`) into a RaggedTensor."""
        tensor = tf.convert_to_tensor(tensor)
        rows = tensor.numpy().tolist()
        if padding is not None:
            pad = tf.convert_to_tensor(padding).numpy().tolist()
            cut = []
            for row in rows:
                n = len(row)
                while n > 0 and row[n - 1] == pad:
                    n -= 1
                cut.append(row[:n])
            rows = cut
        elif lengths is not None:
            rows = [row[:int(n)] for row, n in zip(rows, tf.convert_to_tensor(lengths).numpy())]
        return constant(rows, dtype=tensor.dtype, ragged_rank=ragged_rank,
                        inner_shape=tuple(tensor.shape[ragged_rank + 1:]) or None)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=tf.int64):
        """A RaggedTensor of a 2-D SparseTensor's rows (indices in row-major order)."""
        if st_input.indices.shape.rank != 2 or st_input.indices.shape[1] != 2:
            raise ValueError("rank(st_input) must be 2.")
        nrows = int(st_input.dense_shape[0])
        rows = [int(i) for i in st_input.indices.numpy()[:, 0]]
        return cls.from_value_rowids(st_input.values, tf.constant(rows, tf.int64), nrows) \
            .with_row_splits_dtype(row_splits_dtype)

    # ---- properties ------------------------------------------------------------------------

    @property
    def values(self):
        return self._values

    @property
    def row_splits(self):
        return self._row_splits

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        splits = [self._row_splits]
        v = self._values
        while isinstance(v, RaggedTensor):
            splits.append(v._row_splits)
            v = v._values
        return tuple(splits)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def shape(self):
        """The static shape: the row count, then None for each ragged dimension, then the
        flat values' inner dimensions."""
        nrows = self._row_splits.shape[0]
        nrows = None if nrows is None else nrows - 1
        dims = [nrows] + [None] * self.ragged_rank + list(self.flat_values.shape[1:])
        return tf.TensorShape(dims)

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    def nrows(self, out_type=None, name=None):
        n = tf.shape(self._row_splits, out_type=out_type or self._row_splits.dtype)[0] - 1
        return n

    def row_starts(self, name=None):
        return self._row_splits[:-1]

    def row_limits(self, name=None):
        return self._row_splits[1:]

    def row_lengths(self, axis=1, name=None):
        if axis == 0:
            return self.nrows()
        if axis == 1:
            return self._row_splits[1:] - self._row_splits[:-1]
        return self.with_values(self._values.row_lengths(axis - 1))

    def value_rowids(self, name=None):
        splits = [int(s) for s in self._row_splits.numpy()]
        ids = [i for i in range(len(splits) - 1) for _ in range(splits[i + 1] - splits[i])]
        return tf.constant(ids, self._row_splits.dtype)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        dims = _bounding(self.to_list(), self.shape.rank)
        dims = tf.constant(dims, out_type or self._row_splits.dtype)
        return dims if axis is None else tf.gather(dims, axis)

    def with_values(self, new_values):
        return RaggedTensor(new_values, self._row_splits, internal=True)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype):
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.with_row_splits_dtype(dtype)
        return RaggedTensor(values, tf.cast(self._row_splits, dtype), internal=True)

    def merge_dims(self, outer_axis, inner_axis):
        if (outer_axis, inner_axis) == (0, 1) and self.ragged_rank == 1:
            return self._values
        if (outer_axis, inner_axis) in ((0, -1), (0, self.shape.rank - 1)):
            return tf.reshape(self.flat_values, [-1])
        raise NotImplementedError("merge_dims: only the outer two or all dimensions")

    # ---- conversions -----------------------------------------------------------------------

    def to_list(self):
        """A nested Python list with the values of this RaggedTensor (eager only)."""
        splits = [int(s) for s in self._row_splits.numpy()]
        if isinstance(self._values, RaggedTensor):
            values = self._values.to_list()
        else:
            values = self._values.numpy().tolist()
        return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self):
        """A NumPy object array of rows (an ordinary array when the rows have one length)."""
        import numpy as np
        values = self._values.numpy()
        splits = [int(s) for s in self._row_splits.numpy()]
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        if any(len(row) != len(rows[0]) for row in rows):
            out = np.empty(len(rows), dtype=object)
            for i, row in enumerate(rows):
                out[i] = row
            return out
        return np.array(rows)

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor, rows padded with `default_value` (zero, or b'')."""
        rows = self.to_list()
        dtype = self.dtype
        if default_value is None:
            default_value = b"" if dtype == tf.string else False if dtype == tf.bool else 0
        else:
            default_value = tf.convert_to_tensor(default_value, dtype=dtype).numpy()
            if hasattr(default_value, "tolist"):
                default_value = default_value.tolist()
        dims = _bounding(rows, self.shape.rank)
        if shape is not None:
            dims = [d if s is None else s for d, s in zip(dims, tf.TensorShape(shape).as_list())]
        dense = _pad(rows, dims, default_value)
        return tf.constant(dense, dtype=dtype, shape=dims)

    def to_sparse(self, name=None):
        rows = self.to_list()
        indices, values = [], []
        for i, row in enumerate(rows):
            for j, v in enumerate(row):
                indices.append([i, j])
                values.append(v)
        dims = _bounding(rows, 2)
        return tf.sparse.SparseTensor(tf.constant(indices, tf.int64, shape=[len(indices), 2]),
                                      tf.constant(values, self.dtype, shape=[len(values)]),
                                      tf.constant(dims, tf.int64))

    # ---- indexing --------------------------------------------------------------------------

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        if not key:
            return self
        first, rest = key[0], key[1:]
        if first is Ellipsis and not rest:
            return self
        if isinstance(first, slice):
            splits = [int(s) for s in self._row_splits.numpy()]
            rows = range(len(splits) - 1)[first]
            if first.step not in (None, 1):
                raise ValueError("Slicing of ragged rows with a step is not supported")
            start = rows.start if len(rows) else 0
            stop = rows.stop if len(rows) else 0
            new_splits = self._row_splits[start:stop + 1] - self._row_splits[start]
            if len(rows) == 0:
                new_splits = tf.zeros([1], self._row_splits.dtype)
            lo, hi = splits[start], splits[stop] if len(rows) else splits[start]
            result = RaggedTensor(self._values[lo:hi], new_splits, internal=True)
            if rest:
                return _map_rows(result, rest)
            return result
        index = int(first)
        n = int(self._row_splits.shape[0]) - 1
        if index < -n or index >= n:
            raise tf.errors.InvalidArgumentError(
                None, None, f"slice index {index} of dimension 0 out of bounds.")
        if index < 0:
            index += n
        row = self._values[int(self._row_splits[index]):int(self._row_splits[index + 1])]
        return row[rest] if rest else row

    def __len__(self):
        return int(self._row_splits.shape[0]) - 1

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    # ---- printing --------------------------------------------------------------------------

    def __repr__(self):
        if _is_symbolic(self._row_splits):
            return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"
        import numpy as np
        with np.printoptions(formatter={"all": _formatter}):
            text = _formatter(self.numpy())
        return f"<tf.RaggedTensor {text}>"

    __str__ = __repr__

    # ---- operators: elementwise on the flat values ----------------------------------------

    def __add__(self, other):
        return _binary(tf.math.add, self, other)

    def __radd__(self, other):
        return _binary(tf.math.add, other, self)

    def __sub__(self, other):
        return _binary(tf.math.subtract, self, other)

    def __rsub__(self, other):
        return _binary(tf.math.subtract, other, self)

    def __mul__(self, other):
        return _binary(tf.math.multiply, self, other)

    def __rmul__(self, other):
        return _binary(tf.math.multiply, other, self)

    def __truediv__(self, other):
        return _binary(tf.math.truediv, self, other)

    def __rtruediv__(self, other):
        return _binary(tf.math.truediv, other, self)

    def __floordiv__(self, other):
        return _binary(tf.math.floordiv, self, other)

    def __mod__(self, other):
        return _binary(tf.math.floormod, self, other)

    def __pow__(self, other):
        return _binary(tf.math.pow, self, other)

    def __lt__(self, other):
        return _binary(tf.math.less, self, other)

    def __le__(self, other):
        return _binary(tf.math.less_equal, self, other)

    def __gt__(self, other):
        return _binary(tf.math.greater, self, other)

    def __ge__(self, other):
        return _binary(tf.math.greater_equal, self, other)

    def __and__(self, other):
        return _binary(tf.math.logical_and, self, other)

    def __or__(self, other):
        return _binary(tf.math.logical_or, self, other)

    def __neg__(self):
        return self.with_flat_values(-self.flat_values)

    def __abs__(self):
        return self.with_flat_values(abs(self.flat_values))

    def __invert__(self):
        return self.with_flat_values(tf.math.logical_not(self.flat_values))

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    __hash__ = None


RaggedTensor.__module__ = "tensorflow.python.ops.ragged.ragged_tensor"


def _is_symbolic(t):
    """Whether `t` is a graph tensor (being traced) rather than a value."""
    return type(t).__name__ == "SymbolicTensor"


def _formatter(x):
    """TensorFlow's printing of a ragged value: NumPy arrays with ", " between elements."""
    import numpy as np
    if isinstance(x, np.ndarray):
        if x.size != 0:
            return np.array2string(x, separator=", ")
        return repr(x.tolist())
    return str(x)


def _convert(values):
    if isinstance(values, RaggedTensor):
        return values
    return tf.convert_to_tensor(values)


def _nvals(values):
    if isinstance(values, RaggedTensor):
        return len(values)
    return values.shape[0]


def _bounding(rows, rank):
    """The longest length at each of `rank` dimensions of nested lists."""
    dims = [0] * rank
    level = [rows]
    for d in range(rank):
        dims[d] = max((len(x) for x in level), default=0)
        level = [y for x in level for y in x] if d + 1 < rank else []
    return dims


def _pad(rows, dims, fill):
    if len(dims) == 1:
        return list(rows) + [fill] * (dims[0] - len(rows))
    padded = [_pad(row, dims[1:], fill) for row in rows]
    blank = _pad([], dims[1:], fill)
    return padded + [blank] * (dims[0] - len(rows))


def _map_rows(rt, key):
    """rt[:, key...] for a slice or int inner key, row by row (eager)."""
    rows = [rt[i][key] for i in range(len(rt))]
    if all(not isinstance(r, RaggedTensor) and r.shape.rank == 0 for r in rows):
        return tf.stack(rows) if rows else tf.constant([], rt.dtype)
    return constant([r.numpy().tolist() if not isinstance(r, RaggedTensor) else r.to_list()
                     for r in rows], dtype=rt.dtype)


def _binary(fn, a, b):
    """An elementwise op with ragged operands: on the flat values, when the other operand is
    a scalar, a tensor to broadcast against the flat values' inner dims, or a ragged tensor
    of the same row partitions."""
    ra, rb = isinstance(a, RaggedTensor), isinstance(b, RaggedTensor)
    template = a if ra else b
    if ra and rb:
        sa, sb = a.nested_row_splits, b.nested_row_splits
        if len(sa) != len(sb) or any(
                x.shape != y.shape or not bool(tf.reduce_all(tf.equal(
                    tf.cast(x, tf.int64), tf.cast(y, tf.int64)))) for x, y in zip(sa, sb)):
            raise tf.errors.InvalidArgumentError(
                None, None, "Inputs must have identical ragged splits")
        return template.with_flat_values(fn(a.flat_values, b.flat_values))
    fa = a.flat_values if ra else _align(a, template)
    fb = b.flat_values if rb else _align(b, template)
    return template.with_flat_values(fn(fa, fb))


def _align(dense, template):
    """A dense operand of an elementwise op with `template`, shaped to meet its flat values.
    Of a lower rank it broadcasts against them as it is (its dims that reach the ragged
    dimension are 1); of the same rank (ragged_rank 1), its rows are repeated for each value of
    the template's rows, as TensorFlow's ragged broadcasting does."""
    if not isinstance(dense, tf.Tensor):
        dense = tf.convert_to_tensor(dense, dtype_hint=template.dtype)
    rank, full = dense.shape.rank, template.shape.rank
    if rank is None or rank < full:
        return dense
    if rank == full and template.ragged_rank == 1 and dense.shape[1] == 1:
        rows = dense[:, 0]
        if dense.shape[0] == 1:
            return rows
        return tf.gather(rows, template.value_rowids())
    raise NotImplementedError(f"Trellis does not broadcast a dense operand of shape "
                              f"{dense.shape} against a ragged tensor of shape "
                              f"{template.shape}")


def _max_depth(value):
    if isinstance(value, (list, tuple)):
        return 1 + max((_max_depth(v) for v in value), default=0)
    if hasattr(value, "tolist") and not isinstance(value, (bytes, str)):
        v = value.tolist()
        if isinstance(v, list):
            return _max_depth(v)
    return 0


def _min_depth(value):
    if isinstance(value, (list, tuple)):
        return 1 + min((_min_depth(v) for v in value), default=10**6)
    return 0


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=tf.int64):
    """Constructs a constant RaggedTensor from a nested Python list."""
    if isinstance(pylist, RaggedTensor):
        raise TypeError("pylist may not be a RaggedTensor or RaggedTensorValue.")
    if hasattr(pylist, "tolist") and not isinstance(pylist, (list, tuple)):
        pylist = pylist.tolist()
    if not isinstance(pylist, (list, tuple)):
        return tf.constant(pylist, dtype=dtype)
    depth = _max_depth(pylist)
    leaf_depth = _min_depth(pylist)
    if leaf_depth < depth and leaf_depth < 10**6 and _has_scalar_at(pylist, 0):
        raise ValueError("all scalar values must have the same nesting depth")
    inner = 0 if inner_shape is None else len(inner_shape)
    if ragged_rank is None:
        ragged_rank = max(1, depth - 1 - inner)
    if ragged_rank < 0:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
    if ragged_rank == 0:
        return tf.constant(pylist, dtype=dtype)
    # Peel `ragged_rank` levels of nesting into row_splits, outermost first.
    level = list(pylist)
    nested_splits = []
    for _ in range(ragged_rank):
        splits = [0]
        flat = []
        for row in level:
            if not isinstance(row, (list, tuple)):
                raise ValueError("pylist has scalar values depth %d, but ragged_rank=%d "
                                 "requires scalar value depth greater than %d"
                                 % (len(nested_splits) + 1, ragged_rank, ragged_rank))
            flat.extend(row)
            splits.append(len(flat))
        nested_splits.append(splits)
        level = flat
    if level:
        values = tf.constant(level, dtype=dtype)
    else:
        shape = [0] + list(inner_shape or ())
        values = tf.constant([], dtype=dtype or tf.float32, shape=shape)
    result = values
    for splits in reversed(nested_splits):
        result = RaggedTensor(result, tf.constant(splits, row_splits_dtype), internal=True)
    return result


def _has_scalar_at(value, depth):
    if isinstance(value, (list, tuple)):
        return any(_has_scalar_at(v, depth + 1) for v in value)
    return True


def map_flat_values(op, *args, **kwargs):
    """Applies `op` to the flat values of the ragged arguments; the result takes their row
    partitions."""
    template = None

    def unwrap(v):
        nonlocal template
        if isinstance(v, RaggedTensor):
            if template is None:
                template = v
            return v.flat_values
        if isinstance(v, (list, tuple)):
            return type(v)(unwrap(x) for x in v)
        if isinstance(v, dict):
            return {k: unwrap(x) for k, x in v.items()}
        return v

    args = unwrap(args)
    kwargs = unwrap(kwargs)
    result = op(*args, **kwargs)
    if template is None:
        return result
    return template.with_flat_values(result)


def is_ragged(value):
    return isinstance(value, RaggedTensor)


def range_(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=tf.int64):
    """tf.ragged.range: row i is tf.range(starts[i], limits[i], deltas[i])."""
    if limits is None:
        starts, limits = 0, starts
    s = tf.convert_to_tensor(starts, dtype=dtype).numpy().tolist()
    lim = tf.convert_to_tensor(limits, dtype=dtype).numpy().tolist()
    d = tf.convert_to_tensor(deltas, dtype=dtype).numpy().tolist()
    n = max(len(x) for x in (s, lim, d) if isinstance(x, list)) \
        if any(isinstance(x, list) for x in (s, lim, d)) else 1
    pick = (lambda x, i: x[i] if isinstance(x, list) else x)
    rows = [list(range(pick(s, i), pick(lim, i), pick(d, i))) for i in range(n)]
    return constant(rows, dtype=dtype or tf.convert_to_tensor(limits).dtype)


# ---- tf functions on ragged arguments (eager: they read the values) ------------------------

def _identity(kind, dtype):
    """What a reduction of no values gives, as TensorFlow's segment reductions."""
    import numpy as np
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    info = np.finfo if dtype.is_floating else np.iinfo
    np_type = dtype.as_numpy_dtype
    if kind == "max":
        return -np.inf if dtype.is_floating else info(np_type).min
    return np.inf if dtype.is_floating else info(np_type).max


def _reduce_rows(kind, groups, dtype):
    """One reduction of each list of values in `groups`."""
    out = []
    for g in groups:
        if not g:
            out.append(_identity(kind, dtype))
        elif kind == "sum":
            out.append(sum(g))
        elif kind == "prod":
            p = 1
            for v in g:
                p *= v
            out.append(p)
        else:
            out.append(max(g) if kind == "max" else min(g))
    return out


def reduce(kind, rt, axis=None, keepdims=False):
    """tf.reduce_sum/prod/max/min/mean of a RaggedTensor of ragged_rank 1: over all values,
    each row (axis 1) or each column (axis 0)."""
    if kind == "mean":
        total = reduce("sum", rt, axis, keepdims)
        count = reduce("sum", rt.with_flat_values(tf.ones_like(rt.flat_values)), axis, keepdims)
        if isinstance(total, RaggedTensor):
            return total.with_flat_values(total.flat_values / count.flat_values)
        return total / count
    fn = {"sum": tf.reduce_sum, "prod": tf.reduce_prod, "max": tf.reduce_max,
          "min": tf.reduce_min}[kind]
    if axis is None:
        return fn(rt.flat_values)
    rank = rt.shape.rank
    axis = int(axis)
    if axis < -rank or axis >= rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis %= rank
    if rt.ragged_rank != 1 or rank != 2:
        raise NotImplementedError("ragged reductions of ragged_rank 1 matrices only")
    rows = rt.to_list()
    if axis == 1:
        groups = rows
    else:
        width = max((len(r) for r in rows), default=0)
        groups = [[r[j] for r in rows if len(r) > j] for j in range(width)]
    result = tf.constant(_reduce_rows(kind, groups, rt.dtype), rt.dtype, shape=[len(groups)])
    if keepdims:
        result = tf.expand_dims(result, axis)
    return result


def concat(values, axis):
    """tf.concat of RaggedTensors (and nested lists or tensors): rows appended (axis 0) or each
    row extended (axis 1)."""
    items = [v if isinstance(v, RaggedTensor) else constant(
        tf.convert_to_tensor(v).numpy().tolist() if not isinstance(v, list) else v)
        for v in values]
    dtype = items[0].dtype
    lists = [v.to_list() for v in items]
    rank = items[0].shape.rank
    axis = int(axis) % rank
    if axis == 0:
        rows = [r for rows in lists for r in rows]
    elif axis == 1:
        if len({len(rows) for rows in lists}) != 1:
            raise tf.errors.InvalidArgumentError(
                None, None, "Input tensors at index 0 (=x) and 1 (=y) have incompatible shapes.")
        rows = [sum(parts, []) for parts in zip(*lists)]
    else:
        raise NotImplementedError("ragged concat along axis 0 or 1 only")
    return constant(rows, dtype=dtype, ragged_rank=items[0].ragged_rank)


def tile(rt, multiples):
    """tf.tile of a RaggedTensor of ragged_rank 1: rows repeated, and each row's values."""
    m = [int(x) for x in tf.convert_to_tensor(multiples).numpy()]
    rows = [row * m[1] for row in rt.to_list()] * m[0]
    return constant(rows, dtype=rt.dtype)


def _export():
    _ragged.RaggedTensor = RaggedTensor
    _ragged.constant = constant
    _ragged.map_flat_values = map_flat_values
    _ragged.range = range_
    _ragged.range.__name__ = "range"
    tf.RaggedTensor = RaggedTensor
    global _ragged_reduce, _ragged_concat_impl, _ragged_tile_impl
    _ragged_reduce, _ragged_concat_impl, _ragged_tile_impl = reduce, concat, tile
    for fn in (constant, map_flat_values, is_ragged):
        fn.__module__ = "tensorflow.ragged"


_export()
