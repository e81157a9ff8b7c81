"""tf.sparse.SparseTensor and tf.sparse: tensors stored as the indices of their non-zero
values.

Runs after ragged.py in the namespace tf-strings.c made (see ragged.py). A SparseTensor holds
three tensors as TensorFlow's does: `indices` (int64, [N, rank]), `values` ([N]) and
`dense_shape` (int64, [rank]). The conversions read concrete values (eager code).
"""


class SparseTensor:
    """Represents a sparse tensor."""

    def __init__(self, indices, values, dense_shape):
        self._indices = tf.convert_to_tensor(indices, dtype=tf.int64, name="indices")
        self._values = tf.convert_to_tensor(values, name="values")
        self._dense_shape = tf.convert_to_tensor(dense_shape, dtype=tf.int64,
                                                 name="dense_shape")
        if self._indices.shape.rank not in (None, 2):
            raise ValueError(f"Shape {self._indices.shape} must have rank 2")
        if self._values.shape.rank not in (None, 1):
            raise ValueError(f"Shape {self._values.shape} must have rank 1")
        if self._dense_shape.shape.rank not in (None, 1):
            raise ValueError(f"Shape {self._dense_shape.shape} must have rank 1")
        n_idx, n_val = self._indices.shape[0], self._values.shape[0]
        if n_idx is not None and n_val is not None and n_idx != n_val:
            raise ValueError(f"Dimensions {n_idx} and {n_val} are not compatible")

    @classmethod
    def from_value(cls, value):
        if isinstance(value, SparseTensor):
            return value
        return cls(value.indices, value.values, value.dense_shape)

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        if type(self._dense_shape).__name__ == "SymbolicTensor":
            return tf.TensorShape([None] * (self._dense_shape.shape[0] or 0))
        return tf.TensorShape([int(d) for d in self._dense_shape.numpy()])

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return self.shape.rank

    def with_values(self, new_values):
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def __repr__(self):
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices, self._values, self._dense_shape)

    def __mul__(self, other):
        return self.with_values(self._values * _gather_dense(other, self))

    def __truediv__(self, other):
        return self.with_values(self._values / _gather_dense(other, self))

    def __neg__(self):
        return self.with_values(-self._values)

    def __abs__(self):
        return self.with_values(abs(self._values))

    __hash__ = None


SparseTensor.__module__ = "tensorflow.python.framework.sparse_tensor"


def _entries(sp):
    """[(index tuple, value)] of a SparseTensor, in its order."""
    idx = [tuple(int(i) for i in row) for row in sp.indices.numpy().tolist()]
    return list(zip(idx, sp.values.numpy().tolist()))


def _gather_dense(other, sp):
    """`other` at the sparse tensor's indices (a dense operand of a componentwise op), or
    `other` itself when it is a scalar."""
    other = tf.convert_to_tensor(other, dtype_hint=sp.dtype)
    if other.shape.rank == 0:
        return other
    dense = tf.broadcast_to(other, sp.dense_shape)
    flat = dense.numpy()
    return tf.constant([flat[idx] for idx, _ in _entries(sp)], dense.dtype)


def _zero(dtype):
    return b"" if dtype == tf.string else False if dtype == tf.bool else 0


def _dense_list(shape, fill):
    if not shape:
        return fill
    return [_dense_list(shape[1:], fill) for _ in range(shape[0])]


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """Converts a SparseTensor into a dense tensor."""
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    shape = [int(d) for d in sp_input.dense_shape.numpy()]
    fill = _zero(sp_input.dtype) if default_value is None else \
        tf.convert_to_tensor(default_value, dtype=sp_input.dtype).numpy().tolist()
    dense = _dense_list(shape, fill)
    prev = None
    for n, (idx, v) in enumerate(_entries(sp_input)):
        if any(i < 0 or i >= d for i, d in zip(idx, shape)):
            raise tf.errors.InvalidArgumentError(
                None, None, "indices[%d] = [%s] is out of bounds: need 0 <= index < [%s]"
                % (n, ",".join(map(str, idx)), ",".join(map(str, shape))))
        if validate_indices and prev is not None and idx <= prev:
            what = "repeated" if idx == prev else "out of order"
            raise tf.errors.InvalidArgumentError(
                None, None, "indices[%d] = [%s] is %s. Many sparse ops require sorted indices."
                "\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"
                % (n, ",".join(map(str, idx)), what))
        prev = idx
        if not shape:
            dense = v
            continue
        row = dense
        for i in idx[:-1]:
            row = row[i]
        row[idx[-1]] = v
    return tf.constant(dense, dtype=sp_input.dtype, shape=shape)


def from_dense(tensor, name=None):
    """Converts a dense tensor into a SparseTensor of its non-zero (non-empty) elements."""
    tensor = tf.convert_to_tensor(tensor)
    array = tensor.numpy()
    zero = _zero(tensor.dtype)
    shape = list(tensor.shape)
    indices, values = [], []
    if not shape:
        if array.tolist() != zero:
            indices, values = [[]], [array.tolist()]
    else:
        import numpy as np
        for idx in np.ndindex(*shape):
            v = array[idx].tolist() if hasattr(array[idx], "tolist") else array[idx]
            if v != zero:
                indices.append(list(idx))
                values.append(v)
    return SparseTensor(tf.constant(indices, tf.int64, shape=[len(indices), len(shape)]),
                        tf.constant(values, tensor.dtype, shape=[len(values)]),
                        tf.constant(shape, tf.int64, shape=[len(shape)]))


def reorder(sp_input, name=None):
    """The same SparseTensor with its indices in row-major (canonical) order."""
    entries = sorted(_entries(sp_input), key=lambda e: e[0])
    rank = sp_input.indices.shape[1]
    return SparseTensor(tf.constant([list(i) for i, _ in entries], tf.int64,
                                    shape=[len(entries), rank]),
                        tf.constant([v for _, v in entries], sp_input.dtype,
                                    shape=[len(entries)]),
                        sp_input.dense_shape)


def add(a, b, threshold=0):
    """Sparse + dense is dense; sparse + sparse is sparse (values at equal indices summed, and
    sums whose magnitude is below `threshold` dropped)."""
    sa, sb = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if sa and sb:
        if a.dtype != b.dtype:
            raise TypeError(f"Input {b.dtype.name} does not match {a.dtype.name}")
        sums = {}
        for idx, v in _entries(a) + _entries(b):
            sums[idx] = sums.get(idx, 0) + v
        entries = sorted((i, v) for i, v in sums.items() if not abs(v) < threshold)
        rank = a.indices.shape[1]
        return SparseTensor(tf.constant([list(i) for i, _ in entries], tf.int64,
                                        shape=[len(entries), rank]),
                            tf.constant([v for _, v in entries], a.dtype, shape=[len(entries)]),
                            a.dense_shape)
    if sa:
        return to_dense(reorder(a)) + tf.convert_to_tensor(b, dtype=a.dtype)
    if sb:
        return tf.convert_to_tensor(a, dtype=b.dtype) + to_dense(reorder(b))
    raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add?")


def map_values(op, *args, **kwargs):
    """`op` applied to the values of the SparseTensor arguments (all with the same indices);
    the result has their indices and dense shape."""
    template = None

    def unwrap(v):
        nonlocal template
        if isinstance(v, SparseTensor):
            if template is None:
                template = v
            elif v.indices.shape != template.indices.shape or not bool(
                    tf.reduce_all(tf.equal(v.indices, template.indices))):
                raise tf.errors.InvalidArgumentError(
                    None, None, "Inputs must have identical indices.")
            return v.values
        return v

    args = [unwrap(a) for a in args]
    kwargs = {k: unwrap(v) for k, v in kwargs.items()}
    if template is None:
        raise ValueError("No SparseTensor in argument list of map_values")
    return template.with_values(op(*args, **kwargs))


def _from_entries(entries, rank, dtype, dense_shape):
    return SparseTensor(tf.constant([list(i) for i, _ in entries], tf.int64,
                                    shape=[len(entries), rank]),
                        tf.constant([v for _, v in entries], dtype, shape=[len(entries)]),
                        tf.constant(dense_shape, tf.int64, shape=[rank]))


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The dense product of a SparseTensor (of rank 2) and a dense matrix: the sparse operand's
    missing entries are zeros, so it is the product of its dense form."""
    if isinstance(b, SparseTensor):
        b = to_dense(reorder(b))
    a = to_dense(reorder(sp_a))
    return tf.linalg.matmul(a, b, transpose_a=adjoint_a, transpose_b=adjoint_b)


def _sparse_concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """SparseTensors joined along `axis`: each input's indices shifted by the sizes of the inputs
    before it, the result in row-major order (as TensorFlow's SparseConcat reorders it)."""
    if not sp_inputs:
        raise ValueError("sp_inputs must not be empty")
    shapes = [[int(d) for d in sp.dense_shape.numpy()] for sp in sp_inputs]
    rank = len(shapes[0])
    if axis < 0:
        axis += rank
    out_shape = list(shapes[0])
    if expand_nonconcat_dims:
        for d in range(rank):
            if d != axis:
                out_shape[d] = max(s[d] for s in shapes)
    else:
        for n, s in enumerate(shapes[1:], 1):
            for d in range(rank):
                if d != axis and s[d] != out_shape[d]:
                    raise tf.errors.InvalidArgumentError(
                        None, None, "Input shapes must match: expected %d for dimension %d but "
                        "got %d at position %d" % (out_shape[d], d, s[d], n))
    entries, offset = [], 0
    for sp, s in zip(sp_inputs, shapes):
        for idx, v in _entries(sp):
            idx = list(idx)
            idx[axis] += offset
            entries.append((tuple(idx), v))
        offset += s[axis]
    out_shape[axis] = offset
    entries.sort(key=lambda e: e[0])
    return _from_entries(entries, rank, sp_inputs[0].dtype, out_shape)


def _sparse_slice(sp_input, start, size, name=None):
    """The entries of a SparseTensor inside the box [start, start + size), moved to the origin;
    the box is clipped to the dense shape (an empty dimension where it starts past the end)."""
    shape = [int(d) for d in sp_input.dense_shape.numpy()]
    start = [int(v) for v in tf.convert_to_tensor(start, tf.int64).numpy()]
    size = [int(v) for v in tf.convert_to_tensor(size, tf.int64).numpy()]
    out_shape = [max(0, min(b + n, d) - b) for b, n, d in zip(start, size, shape)]
    entries = []
    for idx, v in _entries(sp_input):
        if all(b <= i < b + n for i, b, n in zip(idx, start, out_shape)):
            entries.append((tuple(i - b for i, b in zip(idx, start)), v))
    return _from_entries(entries, len(shape), sp_input.dtype, out_shape)


def _export():
    # The module runs in the namespace ragged.py shares, so tf.sparse.slice and concat are
    # defined under other names: a global `slice` would hide the builtin from ragged.py's
    # indexing, a global `concat` ragged.py's own.
    _sparse_slice.__name__ = _sparse_slice.__qualname__ = "slice"
    _sparse_concat.__name__ = _sparse_concat.__qualname__ = "concat"
    for fn in (to_dense, from_dense, reorder, add, map_values, sparse_dense_matmul,
               _sparse_concat, _sparse_slice):
        fn.__module__ = "tensorflow.sparse"
        setattr(_sparse, fn.__name__, fn)
    _sparse.SparseTensor = SparseTensor
    tf.SparseTensor = SparseTensor


_export()
