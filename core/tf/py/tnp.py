"""tf.experimental.numpy: NumPy's API over TensorFlow's ops (TensorFlow's guide "NumPy API on
TensorFlow").

tf-numpy.c runs this file in the module tensorflow.experimental.numpy the first time one of its
names is looked up. An "ND array" is a tf.Tensor (`ndarray` is an alias of it): every function
here converts its arguments with `asarray`, which infers dtypes as NumPy does (Python ints are
int64, floats float64 unless prefer_float32), promotes mixed dtypes by NumPy's rules
(np.result_type over the arguments' dtypes, Python numbers taking part by value as NumPy 1.x
does) and then runs the module's own ops, so the same code runs eagerly and while a tf.function
traces. experimental_enable_numpy_behavior() adds NumPy's methods (T, reshape, astype, ravel,
...) to tf.Tensor, makes its operators promote dtypes the same way, and gives its indexing
NumPy's integer-array and boolean-mask forms.
"""

import builtins as _builtins
import numbers as _numbers
import sys as _sys
import types as _types

import numpy as _np
import tensorflow as _tf

# ---- dtypes: NumPy's own type objects, as TensorFlow exports them ---------------------------------

bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
int_, float_, complex_ = _np.int_, _np.float64, _np.complex128
inexact, object_ = _np.inexact, _np.object_
iinfo, issubdtype = _np.iinfo, _np.issubdtype
e, pi, inf, nan = _np.e, _np.pi, _np.inf, _np.nan
newaxis = None

ndarray = _tf.Tensor

_config = {'prefer_float32': False, 'numpy_behavior': False}


def finfo(dtype):
    """NumPy's finfo of `dtype` (a NumPy type or a tf.DType)."""
    return _np.finfo(_np_type(dtype))


def _np_type(dtype):
    if isinstance(dtype, _tf.DType):
        return _np.dtype(dtype.as_numpy_dtype)
    return _np.dtype(dtype)


def _is_tensor(x):
    return isinstance(x, _tf.Tensor)


def _dtype_arg(x):
    """What np.result_type is given for x (TensorFlow's np_utils._maybe_get_dtype): numbers by
    value, tensors and dtypes by type, NumPy arrays as they are."""
    if isinstance(x, _numbers.Real) and not isinstance(x, _np.ndarray):
        if _config['prefer_float32'] and type(x) is float:
            return _np.float32(x)
        return x
    if _is_tensor(x) or isinstance(x, _tf.Variable):
        return _np.dtype(x.dtype.as_numpy_dtype)
    if isinstance(x, _tf.DType):
        return _np.dtype(x.as_numpy_dtype)
    return x


def _flatten(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flatten(v)
        else:
            yield v


def result_type(*arrays_and_dtypes):
    """The dtype NumPy's promotion gives `arrays_and_dtypes`, as a tf.DType."""
    args = [_dtype_arg(x) for x in _flatten(arrays_and_dtypes)]
    if not args:
        args = [_np.asarray([])]
    return _tf.as_dtype(_np.result_type(*args))


def promote_types(type1, type2):
    return _tf.as_dtype(_np.promote_types(_np_type(type1), _np_type(type2)))


def _default_float():
    return _tf.float32 if _config['prefer_float32'] else _tf.float64


def _tf_dtype(dtype):
    return dtype if isinstance(dtype, _tf.DType) else result_type(dtype)


def _has_tensor(value):
    if _is_tensor(value) or isinstance(value, _tf.Variable):
        return True
    return isinstance(value, (list, tuple)) and _builtins.any(_has_tensor(v) for v in value)


def asarray(a, dtype=None):
    """`a` as a tf.Tensor of `dtype` (by default NumPy's inference); a tensor of that dtype is
    returned as it is."""
    if isinstance(a, _tf.Variable):
        a = _tf.convert_to_tensor(a)
    if _is_tensor(a):
        if dtype is None:
            return a
        dtype = _tf_dtype(dtype)
        return a if a.dtype == dtype else _tf.cast(a, dtype)
    if isinstance(a, (list, tuple)) and _has_tensor(a):
        dtype = result_type(a) if dtype is None else _tf_dtype(dtype)
        return _tf.stack([asarray(v, dtype) for v in a])
    if dtype is None:
        if isinstance(a, (str, bytes)):
            return _tf.constant(a)
        dtype = result_type(a)
    else:
        dtype = _tf_dtype(dtype)
    return _tf.constant(_np.asarray(a, dtype=dtype.as_numpy_dtype))


def array(val, dtype=None, copy=True, ndmin=0):
    """asarray, with `ndmin` leading dimensions of size 1 added as needed."""
    result = asarray(val, dtype)
    if copy and _is_tensor(val):
        result = _tf.identity(result)
    for _ in range(ndmin - result.shape.rank):
        result = _tf.expand_dims(result, 0)
    return result


asanyarray = asarray


def copy(a):
    return _tf.identity(asarray(a))


def _promote(*args):
    """The arguments as tensors of one dtype, NumPy's promotion of theirs."""
    dtype = result_type(*args)
    return [asarray(a, dtype) for a in args]


def _float_of(x):
    """x as a tensor, integers and booleans made the default float type (as NumPy's ufuncs)."""
    x = asarray(x)
    if not x.dtype.is_floating:
        x = _tf.cast(x, _default_float())
    return x


# ---- creation ---------------------------------------------------------------------------------------


def _shape(shape):
    if isinstance(shape, _numbers.Integral):
        return [int(shape)]
    if _is_tensor(shape):
        return shape
    return [int(d) for d in shape]


def zeros(shape, dtype=float):
    return _tf.zeros(_shape(shape), dtype=_tf_dtype(dtype) if dtype else _default_float())


def ones(shape, dtype=float):
    return _tf.ones(_shape(shape), dtype=_tf_dtype(dtype) if dtype else _default_float())


def empty(shape, dtype=float):
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    value = asarray(fill_value, dtype)
    return _tf.broadcast_to(value, _shape(shape))


def zeros_like(a, dtype=None):
    a = asarray(a)
    return _tf.zeros(a.shape, dtype=_tf_dtype(dtype) if dtype else a.dtype)


def ones_like(a, dtype=None):
    a = asarray(a)
    return _tf.ones(a.shape, dtype=_tf_dtype(dtype) if dtype else a.dtype)


def full_like(a, fill_value, dtype=None):
    a = asarray(a)
    return full(a.shape, fill_value, dtype if dtype else a.dtype)


def arange(start, stop=None, step=1, dtype=None):
    """Values from start (0) up to stop by step, as NumPy's arange (TensorFlow's messages)."""
    if not step:
        raise ValueError('Argument `step` should be non-zero. Received: %s' % step)
    if stop is None:
        start, stop = 0, start
    dtype = result_type(start, stop, step) if dtype is None else _tf_dtype(dtype)
    if (step > 0 and start >= stop) or (step < 0 and start <= stop):
        return zeros([0], dtype)
    wide = _tf.float64 if (dtype.is_floating or _builtins.any(
        isinstance(v, float) for v in (start, stop, step))) else _tf.int64
    return _tf.cast(_tf.range(start, stop, step, dtype=wide), dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=float, axis=0):
    if num < 0:
        raise ValueError('Number of samples {} must be non-negative.'.format(num))
    dtype = result_type(start, stop, dtype) if dtype else _default_float()
    start64, stop64 = asarray(start, _tf.float64), asarray(stop, _tf.float64)
    div = (num - 1) if endpoint else num
    step = (stop64 - start64) / float(div) if div > 0 else stop64 - start64
    steps = _tf.range(0, num, 1, dtype=_tf.float64)
    for _ in range(start64.shape.rank):
        steps = _tf.expand_dims(steps, -1)
    result = start64 + steps * step
    if endpoint and num > 1:
        last = _tf.expand_dims(stop64, 0)
        result = _tf.concat([result[:-1], last], 0)
    if axis != 0:
        result = moveaxis(result, 0, axis)
    result = _tf.cast(result, dtype)
    return (result, _tf.cast(step, dtype)) if retstep else result


def eye(N, M=None, k=0, dtype=float):
    M = N if M is None else M
    rows = _tf.expand_dims(_tf.range(0, N, 1, dtype=_tf.int64), 1)
    cols = _tf.expand_dims(_tf.range(0, M, 1, dtype=_tf.int64), 0)
    dtype = _tf_dtype(dtype) if dtype else _default_float()
    return _tf.cast(_tf.equal(cols - rows, k), dtype)


def identity(n, dtype=float):
    return eye(n, dtype=dtype)


# ---- element-wise math ------------------------------------------------------------------------------


def _binary(op):
    def fn(x1, x2):
        a, b = _promote(x1, x2)
        return op(a, b)
    return fn


def _bool_or(op, bool_op):
    def fn(x1, x2):
        a, b = _promote(x1, x2)
        return bool_op(a, b) if a.dtype == _tf.bool else op(a, b)
    return fn


add = _bool_or(_tf.add, _tf.logical_or)
multiply = _bool_or(_tf.multiply, _tf.logical_and)
subtract = _binary(_tf.subtract)
maximum = _bool_or(_tf.maximum, _tf.logical_or)
minimum = _bool_or(_tf.minimum, _tf.logical_and)
floor_divide = _binary(_tf.math.floordiv)
mod = remainder = _binary(_tf.math.floormod)
equal = _binary(_tf.equal)
not_equal = _binary(_tf.not_equal)
greater = _binary(_tf.greater)
greater_equal = _binary(_tf.greater_equal)
less = _binary(_tf.less)
less_equal = _binary(_tf.less_equal)
logical_and = _binary(_tf.logical_and)
logical_or = _binary(_tf.logical_or)


def true_divide(x1, x2):
    a, b = _promote(x1, x2)
    if not a.dtype.is_floating:
        a, b = _tf.cast(a, _default_float()), _tf.cast(b, _default_float())
    return _tf.math.truediv(a, b)


divide = true_divide


def power(x1, x2):
    a, b = _promote(x1, x2)
    return _tf.pow(a, b)


def logical_not(x):
    return _tf.logical_not(asarray(x, _tf.bool))


def negative(x):
    return _tf.negative(asarray(x))


def positive(x):
    return _tf.identity(asarray(x))


def _float_unary(op):
    def fn(x):
        return op(_float_of(x))
    return fn


exp = _float_unary(_tf.exp)
log = _float_unary(_tf.math.log)
sqrt = _float_unary(_tf.sqrt)
tanh = _float_unary(_tf.tanh)
sin = _float_unary(_tf.sin)
cos = _float_unary(_tf.cos)


def square(x):
    return _tf.square(asarray(x))


def abs(x):  # pylint: disable=redefined-builtin
    return _tf.abs(asarray(x))


absolute = abs


def sign(x):
    x = asarray(x)
    zero = _tf.zeros([], x.dtype)
    if x.dtype == _tf.bool:
        return x
    return _tf.cast(_tf.greater(x, zero), x.dtype) - _tf.cast(_tf.less(x, zero), x.dtype)


def clip(a, a_min, a_max):
    if a_min is None and a_max is None:
        raise ValueError('Not more than one of `a_min` and `a_max` may be `None`.')
    if a_min is None:
        return minimum(a, a_max)
    if a_max is None:
        return maximum(a, a_min)
    a, a_min, a_max = _promote(a, a_min, a_max)
    return _tf.minimum(_tf.maximum(a, a_min), a_max)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _promote(a, b)
    if not a.dtype.is_floating:
        a, b = _tf.cast(a, _default_float()), _tf.cast(b, _default_float())
    close = _tf.less_equal(_tf.abs(a - b), atol + rtol * _tf.abs(b))
    same = _tf.equal(a, b)  # infinities of one sign
    result = _tf.logical_or(close, same)
    if equal_nan:
        result = _tf.logical_or(result, _tf.logical_and(_tf.not_equal(a, a), _tf.not_equal(b, b)))
    return result


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _tf.reduce_all(isclose(a, b, rtol, atol, equal_nan))


def where(condition, x=None, y=None):
    condition = asarray(condition, _tf.bool)
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError('Both x and y must be ndarrays, or both must be None.')
    x, y = _promote(x, y)
    shape = _np.broadcast_shapes(tuple(condition.shape), tuple(x.shape), tuple(y.shape))
    return _tf.where(_tf.broadcast_to(condition, shape), _tf.broadcast_to(x, shape),
                     _tf.broadcast_to(y, shape))


def nonzero(a):
    """The indices of a's non-zero elements, one int64 array per dimension. The count of them is
    the data's, so this needs the value (eager tensors only)."""
    a = asarray(a)
    if not hasattr(a, 'numpy'):
        raise NotImplementedError(
            'tnp.nonzero needs the value of its argument: eager tensors only.')
    return tuple(_tf.constant(i.astype(_np.int64)) for i in _np.nonzero(a.numpy()))


# ---- reductions -------------------------------------------------------------------------------------


def _axis(axis):
    if axis is None or isinstance(axis, _numbers.Integral):
        return axis
    return [int(x) for x in axis]


def _reduce(op, a, axis, keepdims, dtype=None, promote_int=False, to_float=False):
    a = asarray(a)
    if dtype is not None:
        a = _tf.cast(a, _tf_dtype(dtype))
    elif to_float and not a.dtype.is_floating:
        a = _tf.cast(a, _default_float())
    elif promote_int and (a.dtype == _tf.bool or a.dtype == _tf.int32):
        a = _tf.cast(a, _tf.int64)  # NumPy sums small integers as its default int
    return op(a, axis=_axis(axis), keepdims=bool(keepdims))


def sum(a, axis=None, dtype=None, keepdims=None):  # pylint: disable=redefined-builtin
    return _reduce(_tf.reduce_sum, a, axis, keepdims, dtype, promote_int=True)


def prod(a, axis=None, dtype=None, keepdims=None):
    return _reduce(_tf.reduce_prod, a, axis, keepdims, dtype, promote_int=True)


def mean(a, axis=None, dtype=None, out=None, keepdims=None):
    if out is not None:
        raise ValueError('Setting out is not supported.')
    return _reduce(_tf.reduce_mean, a, axis, keepdims, dtype, to_float=True)


def amax(a, axis=None, out=None, keepdims=None):
    if out is not None:
        raise ValueError('Setting out is not supported.')
    return _reduce(_tf.reduce_max, a, axis, keepdims)


def amin(a, axis=None, out=None, keepdims=None):
    if out is not None:
        raise ValueError('Setting out is not supported.')
    return _reduce(_tf.reduce_min, a, axis, keepdims)


max = amax  # pylint: disable=redefined-builtin
min = amin  # pylint: disable=redefined-builtin


def all(a, axis=None, keepdims=None):  # pylint: disable=redefined-builtin
    return _tf.reduce_all(asarray(a, _tf.bool), axis=_axis(axis), keepdims=bool(keepdims))


def any(a, axis=None, keepdims=None):  # pylint: disable=redefined-builtin
    return _tf.reduce_any(asarray(a, _tf.bool), axis=_axis(axis), keepdims=bool(keepdims))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=None):
    a = _float_of(a) if dtype is None else asarray(a, dtype)
    centered = a - _tf.reduce_mean(a, axis=_axis(axis), keepdims=True)
    n = _tf.cast(_tf.size(a) if axis is None else _np.prod(
        [a.shape[i] for i in ([axis] if isinstance(axis, int) else axis)]), a.dtype)
    return _tf.reduce_sum(_tf.square(centered), axis=_axis(axis), keepdims=bool(keepdims)) / (
        n - ddof)


def std(a, axis=None, keepdims=None):
    return _tf.sqrt(var(a, axis=axis, keepdims=keepdims))


def _arg(op, a, axis):
    a = asarray(a)
    if axis is None:
        a, axis = _tf.reshape(a, [-1]), 0
    return op(a, axis=axis, output_type=_tf.int64)


def argmax(a, axis=None):
    return _arg(_tf.argmax, a, axis)


def argmin(a, axis=None):
    return _arg(_tf.argmin, a, axis)


def sort(a, axis=-1, kind='quicksort', order=None):
    if kind not in ('quicksort', 'stable'):
        raise ValueError("Only 'quicksort' and 'stable' arguments are supported.")
    if order is not None:
        raise ValueError("'order' argument to sort is not supported.")
    a = asarray(a)
    if axis is None:
        return _tf.sort(_tf.reshape(a, [-1]), axis=0)
    return _tf.sort(a, axis=axis)


def argsort(a, axis=-1, kind='quicksort', order=None):
    if order is not None:
        raise ValueError("'order' argument to sort is not supported.")
    a = asarray(a)
    if axis is None:
        a, axis = _tf.reshape(a, [-1]), 0
    return _tf.cast(_tf.argsort(a, axis=axis), _tf.int64)


# ---- linear algebra ---------------------------------------------------------------------------------


def matmul(x1, x2):
    a, b = _promote(x1, x2)
    if a.shape.rank == 0 or b.shape.rank == 0:
        raise ValueError('matmul: Input operand does not have enough dimensions.')
    squeeze_a, squeeze_b = a.shape.rank == 1, b.shape.rank == 1
    if squeeze_a:
        a = _tf.expand_dims(a, 0)
    if squeeze_b:
        b = _tf.expand_dims(b, -1)
    result = _tf.matmul(a, b)
    if squeeze_a:
        result = _tf.squeeze(result, axis=-2)
    if squeeze_b:
        result = _tf.squeeze(result, axis=-1)
    return result


def dot(a, b):
    a, b = _promote(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    if b.shape.rank == 1:
        return _tf.reduce_sum(a * b, axis=-1)
    if a.shape.rank <= 2 and b.shape.rank == 2:
        return matmul(a, b)
    # a (..., k) with b (..., k, n): contract a's last axis with b's second-to-last.
    k = a.shape[-1]
    b_moved = moveaxis(b, -2, 0)
    flat = _tf.matmul(_tf.reshape(a, [-1, k]), _tf.reshape(b_moved, [k, -1]))
    return _tf.reshape(flat, list(a.shape[:-1]) + list(b_moved.shape[1:]))


def vdot(a, b):
    return dot(ravel(a), ravel(b))


def inner(a, b):
    a, b = _promote(a, b)
    if a.shape.rank == 0 or b.shape.rank == 0:
        return a * b
    return dot(a, moveaxis(b, -1, 0)) if b.shape.rank > 1 else dot(a, b)


def outer(a, b):
    a, b = _promote(a, b)
    return _tf.reshape(a, [-1, 1]) * _tf.reshape(b, [1, -1])


# ---- shapes -----------------------------------------------------------------------------------------


def reshape(a, newshape, order='C'):
    if order != 'C':
        raise ValueError('Unsupported order argument {}'.format(order))
    return _tf.reshape(asarray(a), _shape(newshape))


def ravel(a):
    return _tf.reshape(asarray(a), [-1])


def transpose(a, axes=None):
    a = asarray(a)
    if axes is None:
        return _tf.transpose(a)
    return _tf.transpose(a, [int(x) for x in axes])


def moveaxis(a, source, destination):
    a = asarray(a)
    rank = a.shape.rank
    source, destination = source % rank, destination % rank
    perm = [i for i in range(rank) if i != source]
    perm.insert(destination, source)
    return _tf.transpose(a, perm)


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = list(range(a.shape.rank))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return _tf.transpose(a, perm)


def expand_dims(a, axis):
    return _tf.expand_dims(asarray(a), axis)


def squeeze(a, axis=None):
    a = asarray(a)
    return _tf.squeeze(a) if axis is None else _tf.squeeze(a, axis=axis)


def concatenate(arys, axis=0):
    if not isinstance(arys, (list, tuple)):
        arys = [arys]
    if not arys:
        raise ValueError('Need at least one array to concatenate. Received empty '
                         f'input: arys={arys}')
    arys = _promote(*arys)
    if axis is None:
        return _tf.concat([_tf.reshape(x, [-1]) for x in arys], 0)
    return _tf.concat(arys, axis)


def stack(arrays, axis=0):
    arrays = _promote(*arrays)
    return _tf.stack(arrays, axis=axis)


def vstack(tup):
    return concatenate([atleast_2d(t) for t in tup], 0)


def hstack(tup):
    arrs = [asarray(t) for t in tup]
    return concatenate(arrs, 0 if arrs[0].shape.rank == 1 else 1)


def atleast_1d(a):
    a = asarray(a)
    return _tf.reshape(a, [1]) if a.shape.rank == 0 else a


def atleast_2d(a):
    a = atleast_1d(a)
    return _tf.expand_dims(a, 0) if a.shape.rank == 1 else a


def broadcast_to(array, shape):  # pylint: disable=redefined-outer-name
    return _tf.broadcast_to(asarray(array), _shape(shape))


def tile(a, reps):
    a = asarray(a)
    reps = [reps] if isinstance(reps, int) else list(reps)
    while a.shape.rank < len(reps):
        a = _tf.expand_dims(a, 0)
    reps = [1] * (a.shape.rank - len(reps)) + reps
    return _tf.tile(a, reps)


def take(a, indices, axis=None):
    a = asarray(a)
    if axis is None:
        a, axis = _tf.reshape(a, [-1]), 0
    return _tf.gather(a, asarray(indices, _tf.int64), axis=axis)


def shape(a):
    return tuple(asarray(a).shape)


def ndim(a):
    return asarray(a).shape.rank


def size(a):
    return int(_np.prod(tuple(asarray(a).shape), dtype=_np.int64))


# ---- random -----------------------------------------------------------------------------------------

random = _types.ModuleType('tensorflow.experimental.numpy.random', 'Random numbers, NumPy style.')
_sys.modules[random.__name__] = random


def _seed(s):
    try:
        s = int(s)
    except TypeError as err:
        raise ValueError(
            f'Argument `s` got an invalid value {s}. Only integers are supported.') from err
    _tf.random.set_seed(s)


def _size(size):
    if size is None:
        return []
    if isinstance(size, _numbers.Integral):
        return [int(size)]
    return [int(d) for d in size]


def _standard_normal(size=None):
    return _tf.random.normal(_size(size), dtype=_default_float())


def _randn(*args):
    return _standard_normal(size=args)


def _uniform(low=0.0, high=1.0, size=None):
    dtype = _default_float()
    return _tf.random.uniform(_size(size), minval=low, maxval=high, dtype=dtype)


def _rand(*size):
    return _uniform(size=size)


def _randint(low, high=None, size=None, dtype=int64):
    if high is None:
        low, high = 0, low
    u = _tf.random.uniform(_size(size), dtype=_tf.float64)
    return _tf.cast(_tf.math.floordiv(u * (high - low), 1.0) + low, _tf_dtype(dtype))


random.seed = _seed
random.randn = _randn
random.standard_normal = _standard_normal
random.uniform = _uniform
random.rand = _rand
random.random = _rand
random.randint = _randint


# ---- NumPy behavior on tf.Tensor -------------------------------------------------------------------

_tensor_originals = {}


def _operand(x):
    """Whether a Tensor operator's other operand takes part in NumPy's promotion."""
    return isinstance(x, (_numbers.Number, _np.ndarray, _np.generic, list, tuple)) or _is_tensor(x)


def _promoting_operator(name):
    original = _tensor_originals[name]

    def operator(self, other):
        if not _operand(other):
            return original(self, other)
        dtype = result_type(self, other)
        a = self if self.dtype == dtype else _tf.cast(self, dtype)
        b = asarray(other, dtype)
        return original(a, b)
    operator.__name__ = name
    return operator


_PROMOTING = ('__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__', '__truediv__',
              '__rtruediv__', '__floordiv__', '__rfloordiv__', '__mod__', '__rmod__', '__pow__',
              '__rpow__', '__matmul__', '__rmatmul__', '__lt__', '__le__', '__gt__', '__ge__')


def _is_advanced(item):
    if _is_tensor(item):
        return item.shape.rank != 0 or item.dtype == _tf.bool
    return isinstance(item, (list, tuple, _np.ndarray)) and not isinstance(item, str)


def _index_array(item):
    """An advanced index as int64 index tensors: one for an integer array, one per dimension it
    covers for a boolean mask (eager only: the count of True entries is data)."""
    if not _is_tensor(item):
        arr = _np.asarray(item)
        if arr.dtype == _np.bool_:
            return [_tf.constant(i.astype(_np.int64)) for i in _np.nonzero(arr)]
        if arr.dtype.kind not in 'iu':
            raise IndexError('only integers, slices (`:`), ellipsis (`...`), numpy.newaxis '
                             '(`None`) and integer or boolean arrays are valid indices')
        return [_tf.constant(arr.astype(_np.int64))]
    if item.dtype == _tf.bool:
        return list(nonzero(item))
    if not item.dtype.is_integer:
        raise IndexError('only integers, slices (`:`), ellipsis (`...`), numpy.newaxis '
                         '(`None`) and integer or boolean arrays are valid indices')
    return [_tf.cast(item, _tf.int64)]


def _getitem(self, key):
    original = _tensor_originals['__getitem__']
    items = key if isinstance(key, tuple) else (key,)
    if not _builtins.any(_is_advanced(item) for item in items):
        return original(self, key)
    # Numpy's advanced indexing. Integers count as advanced (0-d) indices here. First the basic
    # part: every advanced entry becomes a full slice of the dimensions it covers.
    rank = self.shape.rank
    consumed = 0
    for item in items:
        if item is None or item is Ellipsis:
            continue
        if _is_advanced(item) and _np.asarray(item).dtype == _np.bool_:
            consumed += _np.asarray(item).ndim if not _is_tensor(item) else item.shape.rank
        else:
            consumed += 1
    expanded = []
    for item in items:
        if item is Ellipsis:
            expanded.extend([slice(None)] * (rank - consumed))
        else:
            expanded.append(item)
    if Ellipsis not in items:
        expanded.extend([slice(None)] * (rank - consumed))
    basic, advanced = [], []  # advanced: (output dimension, index tensor)
    out_dim = 0
    for item in expanded:
        if _is_advanced(item) or isinstance(item, (_numbers.Integral, _np.integer)) or (
                _is_tensor(item) and item.shape.rank == 0):
            if _is_advanced(item):
                arrays = _index_array(item)
            elif _is_tensor(item):
                arrays = [_tf.cast(item, _tf.int64)]
            else:
                arrays = [_tf.constant(int(item), _tf.int64)]
            for arr in arrays:
                basic.append(slice(None))
                advanced.append((out_dim, arr))
                out_dim += 1
        elif item is None:
            basic.append(None)
            out_dim += 1
        else:
            basic.append(item)
            out_dim += 1
    x = original(self, tuple(basic))
    dims = [d for d, _ in advanced]
    shapes = [tuple(arr.shape) for _, arr in advanced]
    bshape = list(_np.broadcast_shapes(*shapes))
    index = [_tf.broadcast_to(arr, bshape) for _, arr in advanced]
    # Normalise negative indices against their dimension, then flatten the indexed dimensions
    # (moved to the front) into one and gather the linear indices from it.
    sizes = [x.shape[d] for d in dims]
    index = [_tf.where(_tf.less(i, 0), i + n, i) for i, n in zip(index, sizes)]
    rest = [d for d in range(x.shape.rank) if d not in dims]
    moved = _tf.transpose(x, dims + rest) if dims + rest != list(range(x.shape.rank)) else x
    flat = _tf.reshape(moved, [-1] + [x.shape[d] for d in rest])
    linear = _tf.zeros(bshape, _tf.int64)
    for i, n in zip(index, sizes):
        linear = linear * n + i
    result = _tf.gather(flat, linear, axis=0)
    # NumPy keeps the broadcast dimensions where the indices were when they are adjacent, and
    # puts them first otherwise.
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if adjacent and dims[0] > 0:
        nb = len(bshape)
        perm = list(range(nb, nb + dims[0])) + list(range(nb)) + list(
            range(nb + dims[0], result.shape.rank))
        result = _tf.transpose(result, perm)
    return result


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


def _reshape_method(self, *args, order='C'):  # noqa: also reshape(shape)
    shape_arg = args[0] if len(args) == 1 else args
    return reshape(self, shape_arg, order=order)


def _transpose_method(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (list, tuple))):
        axes = axes[0]
    return transpose(self, axes or None)


def _tolist(self):
    if not hasattr(self, 'numpy'):
        raise ValueError('Symbolic Tensors do not support the tolist API.')
    return self.numpy().tolist()


def _tensor_size(self):
    if not self.shape.is_fully_defined():
        return None
    return _np.prod(self.shape.as_list())


# What TensorFlow's numpy behavior adds to tf.Tensor (np_math_ops._enable_numpy_methods): no
# more, so that NumPy's functions (np.sum) take other tensors through __array__ as there.
_TENSOR_METHODS = {
    'reshape': _reshape_method,
    'transpose': _transpose_method,
    'astype': lambda self, dtype: _tf.cast(self, _tf_dtype(dtype)),
    'ravel': _method(ravel),
    'flatten': _method(ravel),
    'clip': _method(clip),
    'max': _method(amax),
    'mean': _method(mean),
    'min': _method(amin),
    'tolist': _tolist,
    '__pos__': lambda self: self,
    '__round__': lambda self, decimals=0: around(self, decimals),
}


def around(a, decimals=0):
    """a rounded half to even to `decimals` places (NumPy's around)."""
    a = asarray(a)
    if not a.dtype.is_floating:
        return a
    scale = 10.0 ** decimals
    scaled = a * scale
    floor = _tf.math.floordiv(scaled, 1.0)
    diff = scaled - floor
    up = _tf.logical_or(_tf.greater(diff, 0.5), _tf.logical_and(
        _tf.equal(diff, 0.5), _tf.not_equal(_tf.math.floormod(floor, 2.0), 0.0)))
    return _tf.where(up, floor + 1.0, floor) / scale


round_ = around


def experimental_enable_numpy_behavior(prefer_float32=False, dtype_conversion_mode='legacy'):
    """Enable NumPy behavior on Tensors: NumPy's methods (T, reshape, ravel, astype, ...) on
    tf.Tensor, NumPy's dtype promotion in its operators and NumPy's indexing.

    prefer_float32: whether dtype inference uses float32 for Python floats (or float64, NumPy's
    choice). dtype_conversion_mode: 'legacy' (NumPy's rules) here; 'safe' and 'all' (JAX's
    rules) are not supported."""
    if dtype_conversion_mode not in ('legacy', 'off', 'safe', 'all'):
        raise ValueError(f'Unsupported dtype_conversion_mode: {dtype_conversion_mode!r}; '
                         "expected one of 'off', 'legacy', 'safe', 'all'.")
    if dtype_conversion_mode in ('safe', 'all'):
        raise NotImplementedError(
            f'dtype_conversion_mode={dtype_conversion_mode!r} (JAX-style promotion with weak '
            'types) is not supported; use the default, NumPy promotion.')
    _config['prefer_float32'] = bool(prefer_float32)
    if _config['numpy_behavior']:
        return
    _config['numpy_behavior'] = True
    tensor = _tf.Tensor
    for name in _PROMOTING + ('__getitem__',):
        _tensor_originals[name] = getattr(tensor, name)
    for name in _PROMOTING:
        setattr(tensor, name, _promoting_operator(name))
    tensor.__getitem__ = _getitem
    for name, fn in _TENSOR_METHODS.items():
        setattr(tensor, name, fn)
    tensor.T = property(lambda self: transpose(self))
    tensor.size = property(_tensor_size)
    tensor.data = property(lambda self: self)

