"""tf.debugging, tf.nest, tf.name_scope, tf.device, tf.Graph and small everyday names.

tf-debugging.c runs this file once, when the module is imported, in a namespace where `tf` is
the module and `_dbg` its helpers: tracing(), push_scope()/pop_scope() on the graph being built,
assert_node() and check_numerics_node() (graph nodes that fail the run with TensorFlow's
kernel texts), static_value() (a tensor's value when known at trace time). The message texts
are TensorFlow's (python/ops/check_ops.py, control_flow_assert.py, python/util/nest_util.py and
util.cc); eagerly the asserts raise at once, while tracing they check what is known statically
and add an Assert node for the rest, as TensorFlow does.
"""

import abc
import collections
import collections.abc
import contextlib
import sys
import types


def _submodule(name, doc=None):
    """tensorflow.NAME: the existing submodule, or a new one registered in sys.modules."""
    existing = getattr(tf, name, None)
    if isinstance(existing, types.ModuleType):
        return existing
    mod = types.ModuleType('tensorflow.' + name, doc)
    sys.modules['tensorflow.' + name] = mod
    setattr(tf, name, mod)
    return mod


def _export(module, *functions, names=None):
    for fn in functions:
        setattr(module, fn.__name__ if names is None else names[fn], fn)


def _np():
    import numpy
    return numpy


# ---- execution mode ------------------------------------------------------------------------

_default_graphs = []


def executing_eagerly():
    """Checks whether the current thread has eager execution enabled."""
    if _default_graphs:
        return False
    return not _dbg.tracing()


def inside_function():
    """Indicates whether the caller code is executing inside a `tf.function`."""
    return _dbg.tracing()


# ---- tf.nest -------------------------------------------------------------------------------


class _Dot:
    """The leaves of the structures an assert_same_structure error shows ("[., .]")."""

    def __str__(self):
        return '.'

    __repr__ = __str__


_DOT = _Dot()


def _is_mapping(v):
    return isinstance(v, collections.abc.Mapping)


def _is_namedtuple(v):
    return isinstance(v, tuple) and isinstance(getattr(v, '_fields', None),
                                               collections.abc.Sequence)


def is_nested(seq):
    """Returns true if its input is a nested structure (a sequence, mapping or mapping view)."""
    if _is_mapping(seq) or isinstance(seq, collections.abc.MappingView):
        return True
    return isinstance(seq, collections.abc.Sequence) and not isinstance(seq, (str, bytes))


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError('nest only supports dicts with sortable keys.') from None


def _children(v):
    """The items of a nested value in nest's order: a mapping's values by sorted key."""
    if _is_mapping(v):
        return [v[k] for k in _sorted_keys(v)]
    if isinstance(v, collections.abc.MappingView):
        return list(v)
    return list(v)


def _flatten(structure, out):
    if not is_nested(structure):
        out.append(structure)
        return
    for item in _children(structure):
        _flatten(item, out)


def flatten(structure, expand_composites=False):
    """Returns a flat list from a given structure."""
    out = []
    _flatten(structure, out)
    return out


def _sequence_like(instance, args):
    """A value of instance's kind holding `args` (a mapping's in sorted-key order)."""
    if _is_mapping(instance):
        result = dict(zip(_sorted_keys(instance), args))
        items = [(key, result[key]) for key in instance]
        if isinstance(instance, collections.defaultdict):
            d = collections.defaultdict(instance.default_factory)
            d.update(items)
            return d
        return type(instance)(items)
    if isinstance(instance, collections.abc.MappingView):
        return list(args)
    if _is_namedtuple(instance):
        return type(instance)(*args)
    return type(instance)(args)


def _packed(structure, flat, index):
    packed = []
    for item in _children(structure):
        if is_nested(item):
            index, child = _packed(item, flat, index)
            packed.append(_sequence_like(item, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def _truncate(value, length):
    text = str(value)
    return text[:length - 3] + '...' if len(text) > length else text


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """Returns a given flattened sequence packed into a given structure."""
    if not is_nested(flat_sequence):
        raise TypeError('Attempted to pack value:\n  {}\ninto a structure, but found '
                        'incompatible type `{}` instead.'.format(
                            _truncate(flat_sequence, 100), type(flat_sequence)))
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                'The target structure is of type `{}`\n  {}\nHowever the input is a sequence '
                '({}) of length {}.\n  {}\nnest cannot guarantee that it is safe to map one to '
                'the other.'.format(type(structure), _truncate(structure, 100),
                                    type(flat_sequence), len(flat_sequence),
                                    _truncate(flat_sequence, 100)))
        return flat_sequence[0]
    flat_sequence = list(flat_sequence)
    try:
        final, packed = _packed(structure, flat_sequence, 0)
        if final < len(flat_sequence):
            raise IndexError
    except IndexError:
        n = len(flatten(structure))
        if n != len(flat_sequence):
            raise ValueError(
                'Could not pack sequence. Structure had %d atoms, but flat_sequence had %d '
                'items.  Structure: %s, flat_sequence: %s.'
                % (n, len(flat_sequence), structure, flat_sequence)) from None
        raise
    return _sequence_like(structure, packed)


def _describe(v):
    return 'type=%s str=%s' % (type(v).__name__, v)


def _same_structure_error(a, b, check_types):
    """(message, is_type_error) of the first difference, or None: util.cc's helper."""
    nested_a, nested_b = is_nested(a), is_nested(b)
    if nested_a != nested_b:
        seq, other = (a, b) if nested_a else (b, a)
        return ('Substructure "%s" is a sequence, while substructure "%s" is not'
                % (_describe(seq), _describe(other)), False)
    if not nested_a:
        return None
    if check_types:
        both_namedtuples = _is_namedtuple(a) and _is_namedtuple(b)
        differ = (type(a) is not type(b) and not (isinstance(a, list) and isinstance(b, list))
                  and not (_is_mapping(a) and _is_mapping(b)))
        if both_namedtuples:
            differ = a._fields != b._fields or type(a).__name__ != type(b).__name__
        if differ:
            return ("The two namedtuples don't have the same sequence type. First structure %s "
                    "has type %s, while second structure %s has type %s"
                    % (_describe(a), type(a).__name__, _describe(b), type(b).__name__), True)
        if _is_mapping(a) and _is_mapping(b) and set(a) != set(b):
            return ("The two dictionaries don't have the same set of keys. First structure has "
                    "keys %s, while second structure has keys %s."
                    % (list(a), list(b)), False)
    items_a, items_b = _children(a), _children(b)
    for x, y in zip(items_a, items_b):
        error = _same_structure_error(x, y, check_types)
        if error:
            return error
    if len(items_a) != len(items_b):
        return ("The two structures don't have the same number of elements. First structure: "
                "%s. Second structure: %s" % (_describe(a), _describe(b)), False)
    return None


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Asserts that two structures are nested in the same way."""
    error = _same_structure_error(nest1, nest2, check_types)
    if error is None:
        return
    message, is_type_error = error
    text = ("The two structures don't have the same nested structure.\n\nFirst structure: "
            "%s\n\nSecond structure: %s\n\nMore specifically: %s"
            % (_describe(nest1), _describe(nest2), message))
    text += '\nEntire first structure:\n%s\nEntire second structure:\n%s' % (
        map_structure(lambda _: _DOT, nest1), map_structure(lambda _: _DOT, nest2))
    raise (TypeError if is_type_error else ValueError)(text)


def map_structure(func, *structure, **kwargs):
    """Creates a new structure by applying `func` to each atom in `structure`."""
    if not callable(func):
        raise TypeError('func must be callable, got: %s' % func)
    if not structure:
        raise ValueError('Must provide at least one structure')
    check_types = kwargs.pop('check_types', True)
    kwargs.pop('expand_composites', None)
    if kwargs:
        raise ValueError(
            'Only valid keyword arguments are `check_types` and `expand_composites`, not: `%s`'
            % '`, `'.join(kwargs.keys()))
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    entries = zip(*[flatten(s) for s in structure])
    return pack_sequence_as(structure[0], [func(*x) for x in entries])


def _paths(structure, prefix):
    if not is_nested(structure):
        yield prefix, structure
        return
    if _is_mapping(structure):
        keys = _sorted_keys(structure)
    else:
        keys = range(len(_children(structure)))
    for key, item in zip(keys, _children(structure)):
        yield from _paths(item, prefix + (key,))


def flatten_with_joined_string_paths(structure, separator='/', expand_composites=False):
    """Returns a list of (string path, atom) tuples."""
    return [(separator.join(str(k) for k in path), value)
            for path, value in _paths(structure, ())]


def flatten_with_tuple_paths(structure, expand_composites=False):
    """Returns a list of `(tuple_path, atom)` tuples."""
    return list(_paths(structure, ()))


nest = _submodule('nest', 'Functions that work with structures.')
_export(nest, is_nested, flatten, pack_sequence_as, assert_same_structure, map_structure,
        flatten_with_joined_string_paths, flatten_with_tuple_paths)


# ---- tf.name_scope ---------------------------------------------------------------------------

_eager_scope = ['']


class name_scope:
    """A context manager for use when defining a Python op."""

    def __init__(self, name):
        if not isinstance(name, str):
            raise ValueError('name for name_scope must be a string.')
        self._name = name
        self._exits = []

    @property
    def name(self):
        return self._name

    def __enter__(self):
        if _dbg.tracing():
            if not self._name:
                self._exits.append(None)
                return ''
            # "a/b/" is an absolute scope, entered as it is (TensorFlow's name_scope_v2)
            scope = _dbg.push_scope(self._name if self._name != '/' else '')
            self._exits.append(_dbg.pop_scope)
            return scope
        old = _eager_scope[0]
        name = self._name
        if not name:
            scope = ''
        elif name[-1] == '/':
            scope = name
        else:
            scope = old + name + '/'
        _eager_scope[0] = scope
        _dbg.set_eager_scope(scope)

        def leave():
            _eager_scope[0] = old
            _dbg.set_eager_scope(old)
        self._exits.append(leave)
        return scope

    def __exit__(self, *exc):
        exit_fn = self._exits.pop()
        if exit_fn is not None:
            exit_fn()
        return False


name_scope.__module__ = 'tensorflow'


@contextlib.contextmanager
def _layer_name_scope(name):
    """A Keras layer's scope for the variables it makes while it builds and runs: the current
    scope plus its name, absolute (Keras 2's name_scope_v2 of Layer._name_scope(), whose
    trailing '/' keeps a second call from making 'dense_1'), for the variables it makes and,
    while tracing, for its graph's ops."""
    outer = _dbg.set_eager_scope('')
    scope = outer + name + '/'
    _dbg.set_eager_scope(scope)
    old = _eager_scope[0]
    _eager_scope[0] = scope
    # While tracing, the layer's ops are in its scope too, as Keras's __call__ enters it
    # ('dense/MatMul'): the graph's current scope plus the name, absolute, so that a second call
    # of the layer re-enters 'dense/' instead of making 'dense_1/'.
    graph_scope = None
    if _dbg.tracing():
        graph_scope = _dbg.current_scope() + name + '/'
        _dbg.push_scope(graph_scope)
    try:
        yield scope
    finally:
        if graph_scope is not None:
            _dbg.pop_scope()
        _eager_scope[0] = old
        _dbg.set_eager_scope(outer)


tf._layer_name_scope = _layer_name_scope


# ---- tf.device -------------------------------------------------------------------------------

_DEVICE_TYPES = ('CPU', 'GPU', 'TPU')


def _check_device_spec(spec):
    """Parses a device string as DeviceSpec.from_string does, for its errors."""
    device_type = None
    for part in spec.split('/'):
        y = part.split(':')
        n = len(y)
        if not part:
            continue
        if n == 2 and y[0] in ('job', 'replica', 'task'):
            continue
        if n in (1, 2) and y[0].upper() in _DEVICE_TYPES:
            if device_type is not None:
                raise ValueError('Multiple device types are not allowed while parsing the '
                                 'device spec: %s.' % spec)
            device_type = y[0].upper()
            if n == 2 and y[1] != '*':
                int(y[1])
        elif n == 3 and y[0] == 'device':
            if device_type is not None:
                raise ValueError('Multiple device types are not allowed while parsing the '
                                 'device spec: %s.' % spec)
            device_type = y[1]
            if y[2] != '*':
                int(y[2])
        elif n and y[0] != '':
            raise ValueError("Unknown attribute '%s' is encountered while parsing the device "
                             "spec: '%s'." % (y[0], spec))


class _DeviceScope:
    """What tf.device returns. Trellis runs on the CPU only: any device is accepted with soft
    placement, as TensorFlow places ops on a machine without that device."""

    def __init__(self, name):
        self._name = name

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def device(device_name):
    """Specifies the device for ops created/executed in this context."""
    if callable(device_name):
        raise RuntimeError('tf.device does not support functions.')
    if device_name is not None:
        spec = device_name.to_string() if hasattr(device_name, 'to_string') else device_name
        if not isinstance(spec, str):
            raise TypeError('Expected a string or a DeviceSpec, got %r' % (device_name,))
        _check_device_spec(spec)
    return _DeviceScope(device_name)


# ---- tf.Graph --------------------------------------------------------------------------------


class _GraphType(abc.ABCMeta):
    """A tf.function's graph (tf-function.c's FuncGraph type) is a tf.Graph too."""

    def __instancecheck__(cls, obj):
        kind = type(obj)
        if kind.__name__ == 'FuncGraph' and kind.__module__.startswith('tensorflow.'):
            return True
        return super().__instancecheck__(obj)


class Graph(metaclass=_GraphType):
    """A TensorFlow computation, represented as a dataflow graph.

    In Trellis a tf.function's graph is its ConcreteFunction's FuncGraph (an instance of this
    class); a Graph made directly only serves as a default graph (`with g.as_default():`), under
    which tf.executing_eagerly() is False as in TensorFlow. Ops under it still run eagerly:
    Trellis has no TF1 sessions."""

    def __init__(self):
        self._building_function = False

    @property
    def building_function(self):
        return self._building_function

    @contextlib.contextmanager
    def as_default(self):
        _default_graphs.append(self)
        try:
            yield self
        finally:
            _default_graphs.pop()

    def get_operations(self):
        return []

    def finalize(self):
        self._finalized = True

    @property
    def finalized(self):
        return getattr(self, '_finalized', False)


Graph.__module__ = 'tensorflow'


def get_default_graph():
    """Returns the default graph for the current thread."""
    if _default_graphs:
        return _default_graphs[-1]
    return _global_graph


_global_graph = Graph()


# ---- tf.debugging ----------------------------------------------------------------------------

def _message_prefix(message):
    if message:
        return '%s.  ' % message
    return ''


def _shape_and_dtype_str(tensor):
    return 'shape=%s dtype=%s' % (tensor.shape, tensor.dtype.name)


def _invalid_argument(message):
    return tf.errors.InvalidArgumentError(None, None, message)


def _pretty_print(item, summarize):
    if isinstance(item, tf.Tensor):
        np = _np()
        arr = item.numpy()
        if np.isscalar(arr):
            return str(arr)
        flat = arr.reshape((-1,))
        lst = [str(x) for x in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append('...')
        return str(lst)
    return str(item)


def _assert_msg_data(sym, x, y, summarize, test):
    np = _np()
    data = ['Condition x %s y did not hold.' % sym]
    if summarize > 0:
        if x.shape == y.shape and x.shape.as_list():
            mask = np.logical_not(test.numpy())
            indices = np.argwhere(mask)
            num = min(summarize, indices.shape[0])
            data.append('Indices of first %d different values:' % num)
            data.append(indices[:num])
            data.append('Corresponding x values:')
            data.append(x.numpy()[mask].reshape((-1,))[:num])
            data.append('Corresponding y values:')
            data.append(y.numpy()[mask].reshape((-1,))[:num])
        x_np = np.asarray(x.numpy()).reshape((-1,))
        y_np = np.asarray(y.numpy()).reshape((-1,))
        x_sum = min(x_np.size, summarize)
        y_sum = min(y_np.size, summarize)
        data.append('First %d elements of x:' % x_sum)
        data.append(x_np[:x_sum])
        data.append('First %d elements of y:' % y_sum)
        data.append(y_np[:y_sum])
    return data


def _static_string(item):
    if not isinstance(item, tf.Tensor):
        return str(item)
    value = _dbg.static_value(item)
    return str(value.numpy()) if value is not None else item


def _assert_static(condition, data):
    if not condition:
        raise _invalid_argument('\n'.join(_static_string(d) for d in data))


def _named_tensor(v, name):
    """convert_to_tensor(v, name=name): Python values become a constant of that name."""
    if isinstance(v, (tf.Tensor, tf.Variable)):
        return tf.convert_to_tensor(v)
    return tf.constant(v, name=name)


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name):
    with name_scope(name or opname):
        x = _named_tensor(x, 'x')
        y = _named_tensor(y, 'y')
        if executing_eagerly():
            test = op_func(x, y)
            if bool(tf.reduce_all(test)):
                return None
            if summarize is None:
                summarize = 3
            elif summarize < 0:
                summarize = 1e9
            if data is None:
                data = _assert_msg_data(sym, x, y, summarize, test)
            if message is not None:
                data = [message] + list(data)
            raise _invalid_argument('\n'.join(_pretty_print(d, summarize) for d in data))
        if data is None:
            data = ['Condition x %s y did not hold element-wise:' % sym,
                    'x (%s) = ' % x.name, x, 'y (%s) = ' % y.name, y]
        if message is not None:
            data = [message] + list(data)
        condition = tf.reduce_all(op_func(x, y))
        x_static, y_static = _dbg.static_value(x), _dbg.static_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(_np().all(static_func(x_static.numpy(), y_static.numpy())), data)
        return Assert(condition, data, summarize=summarize)


def _binary(opname, sym, op_func, np_name):
    def check(x, y, message=None, summarize=None, name=None):
        if opname == 'assert_equal':
            # TensorFlow's assert_equal enters its scope once for this test and again in
            # _binary_assert: traced, its nodes live in "assert_equal_1/".
            with name_scope(name or opname):
                if x is y:
                    return None
        return _binary_assert(sym, opname, op_func, getattr(_np(), np_name), x, y, None,
                              summarize, message, name)
    check.__name__ = opname
    check.__qualname__ = opname
    check.__doc__ = 'Assert the condition `x %s y` holds element-wise.' % sym
    return check


assert_equal = _binary('assert_equal', '==', tf.equal, 'equal')
assert_none_equal = _binary('assert_none_equal', '!=', tf.not_equal, 'not_equal')
assert_less = _binary('assert_less', '<', tf.less, 'less')
assert_less_equal = _binary('assert_less_equal', '<=', tf.less_equal, 'less_equal')
assert_greater = _binary('assert_greater', '>', tf.greater, 'greater')
assert_greater_equal = _binary('assert_greater_equal', '>=', tf.greater_equal, 'greater_equal')


def _unary(opname, sym, zero_first, compare):
    def check(x, message=None, summarize=None, name=None):
        message = _message_prefix(message)
        with name_scope(name or opname):
            x = tf.convert_to_tensor(x)
            label = _shape_and_dtype_str(x) if executing_eagerly() else x.name
            data = [message, 'Condition x %s did not hold element-wise:' % sym,
                    'x (%s) = ' % label, x]
            zero = tf.zeros([], x.dtype)
            a, b = (zero, x) if zero_first else (x, zero)
            op, np_name = compare
            return _binary_assert(sym.split()[0], op.__name__, op, getattr(_np(), np_name), a, b,
                                  data, summarize, None, None)
    check.__name__ = opname
    check.__qualname__ = opname
    check.__doc__ = 'Assert the condition `x %s` holds element-wise.' % sym
    return check


assert_positive = _unary('assert_positive', '> 0', True, (tf.less, 'less'))
assert_negative = _unary('assert_negative', '< 0', False, (tf.less, 'less'))
assert_non_negative = _unary('assert_non_negative', '>= 0', True, (tf.less_equal, 'less_equal'))
assert_non_positive = _unary('assert_non_positive', '<= 0', False, (tf.less_equal, 'less_equal'))


def _summarize_eager(tensor, summarize=None):
    if summarize is None:
        summarize = 3
    elif summarize < 0:
        summarize = int(tf.size(tensor))
    if tensor.shape.rank:
        flat = tensor.numpy().reshape((-1,))
        lst = [str(x) for x in flat[:summarize]]
        if len(lst) < flat.size:
            lst.append('...')
    else:
        lst = [str(tensor.numpy())] if summarize != 0 else []
    return ', '.join(lst)


def Assert(condition, data, summarize=None, name=None):
    """Asserts that the given condition is true."""
    if executing_eagerly():
        if not condition:
            xs = [tf.convert_to_tensor(d) for d in data]
            raise _invalid_argument("Expected '%s' to be true. Summarized data: %s"
                                    % (condition, '\n'.join(_summarize_eager(x, summarize)
                                                            for x in xs)))
        return None
    with name_scope(name or 'Assert'):
        _dbg.assert_node(condition, list(data), summarize)
    return None


def _rank_check(opname, x, rank, message, name, static_condition, dynamic_condition, what):
    with name_scope(name or opname):
        x = tf.convert_to_tensor(x)
        rank = tf.convert_to_tensor(rank)
        message = _message_prefix(message)
        label = '' if executing_eagerly() else x.name
        assert_type(rank, tf.int32)
        rank_static = _dbg.static_value(rank)
        if rank_static is not None:
            if rank_static.shape.rank != 0:
                raise ValueError('Rank must be a scalar.')
            given = int(rank_static)
            actual = x.shape.rank
            if actual is not None:
                if not static_condition(actual, given):
                    raise ValueError('%sTensor %s must have rank%s %d.  Received rank %d, '
                                     'shape %s' % (message, label, what, given, actual, x.shape))
                return None
        data = [message, 'Tensor %s must have rank%s' % (label, what), rank,
                'Received shape: ', tf.shape(x)]
        return Assert(dynamic_condition(tf.rank(x), rank), data)


def assert_rank(x, rank, message=None, name=None):
    """Assert that `x` has rank equal to `rank`."""
    return _rank_check('assert_rank', x, rank, message, name, lambda a, g: a == g, tf.equal, '')


def assert_rank_at_least(x, rank, message=None, name=None):
    """Assert that `x` has rank of at least `rank`."""
    return _rank_check('assert_rank_at_least', x, rank, message, name, lambda a, g: a >= g,
                       tf.greater_equal, ' at least')


def assert_rank_in(x, ranks, message=None, name=None):
    """Assert that `x` has a rank in `ranks`."""
    x = tf.convert_to_tensor(x)
    ranks = tuple(int(r) for r in ranks)
    if x.shape.rank is not None and x.shape.rank not in ranks:
        label = '' if executing_eagerly() else x.name
        raise ValueError('%sTensor %s must have rank in %s.  Received rank %d, shape %s'
                         % (_message_prefix(message), label, ranks, x.shape.rank, x.shape))
    return None


def assert_type(tensor, tf_type, message=None, name=None):
    """Asserts that the given `Tensor` is of the specified type."""
    tf_type = tf.as_dtype(tf_type)
    if not isinstance(tensor, tf.Variable):
        tensor = tf.convert_to_tensor(tensor)
    if tensor.dtype != tf_type:
        try:
            label = tensor.name
        except AttributeError:
            label = 'tensor'
        raise TypeError('%s%s must be of type %r; got %r'
                        % (_message_prefix(message), label, tf_type, tensor.dtype))
    return None


def assert_integer(x, message=None, name=None):
    """Assert that `x` is of integer dtype."""
    x = tf.convert_to_tensor(x)
    if not x.dtype.is_integer:
        label = 'tensor' if executing_eagerly() else x.name
        raise TypeError('%sExpected "x" to be integer type.  Found: %s of dtype %s'
                        % (_message_prefix(message), label, x.dtype))
    return None


def assert_scalar(tensor, message=None, name=None):
    """Asserts that the given `tensor` is a scalar."""
    tensor = tf.convert_to_tensor(tensor)
    shape = tensor.shape
    message = _message_prefix(message)
    if shape.rank != 0:
        if executing_eagerly():
            raise ValueError('%sExpected scalar shape, saw shape: %s.' % (message, shape))
        raise ValueError('%sExpected scalar shape for %s, saw shape: %s.'
                         % (message, tensor.name, shape))
    return tensor


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Assert tensor shapes and dimension size relationships between tensors.

    Trellis checks the statically known sizes (all of them eagerly), as TensorFlow does before
    it adds run-time checks for the unknown ones; unknown sizes are not checked."""
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _message_prefix(message)
    eager = executing_eagerly()

    def tensor_name(x):
        return _shape_and_dtype_str(x) if eager else x.name

    constraints = [(tf.convert_to_tensor(x), s) for x, s in shapes if s is not None]
    sized = []
    for tensor, symbolic in constraints:
        if not (hasattr(symbolic, '__iter__') or hasattr(symbolic, '__getitem__')):
            raise ValueError('%sTensor %s.  Specified shape must be an iterable.  An iterable has '
                             'the attribute `__iter__` or `__getitem__`.  Received specified '
                             'shape: %s' % (prefix, tensor_name(tensor), symbolic))
        symbolic = tuple(symbolic)
        innermost = False
        for i, symbol in enumerate(symbolic):
            if symbol is Ellipsis or symbol == '*':
                if i != 0:
                    raise ValueError('%sTensor %s specified shape index %d.  Symbol `...` or `*` '
                                     'for a variable number of unspecified dimensions is only '
                                     'allowed as the first entry' % (prefix, tensor_name(tensor),
                                                                     i))
                innermost = True
        sizes = symbolic[1:] if innermost else symbolic
        if not sizes:
            sizes = (1,)
        rank = tensor.shape.rank
        actual = (1,) if rank == 0 else (tensor.shape.as_list() if rank is not None else None)
        sized.append((tensor, innermost, actual, sizes))
    for tensor, innermost, actual, sizes in sized:
        rank = len(sizes)
        if innermost:
            if rank not in (0, 1):
                assert_rank_at_least(tensor, rank, message=message, name=name)
        elif rank in (0, 1):
            assert_rank_in(tensor, [0, 1], message=message, name=name)
        else:
            assert_rank(tensor, rank, message=message, name=name)
    known = {}
    for tensor, innermost, actual, sizes in sized:
        for i, symbol in enumerate(sizes):
            if symbol is None or symbol == '.':
                continue
            dim = i - len(sizes) if innermost else i
            size = actual[dim] if actual is not None else None
            explicit = isinstance(symbol, int) or (isinstance(symbol, str) and symbol.isdigit())
            if explicit or symbol in known:
                if explicit:
                    specified, how = int(symbol), 'Specified explicitly'
                else:
                    specified, by, at = known[symbol]
                    how = 'Specified by tensor %s dimension %d' % (tensor_name(by), at)
                if size is not None and specified is not None and size != specified:
                    raise ValueError('%s%s.  Tensor %s dimension %s must have size %d.  Received '
                                     'size %d, shape %s' % (prefix, how, tensor_name(tensor), dim,
                                                            specified, size, tensor.shape))
            else:
                known[symbol] = (size, tensor, dim)
    return None


def check_numerics(tensor, message, name=None):
    """Checks a tensor for NaN and Inf values."""
    tensor = tf.convert_to_tensor(tensor)
    if tensor.dtype not in (tf.float32, tf.float64):
        raise TypeError('Value passed to parameter \'tensor\' has DataType %s not in list of '
                        'allowed values: bfloat16, float16, float32, float64'
                        % tensor.dtype.name)
    if executing_eagerly():
        np = _np()
        values = np.asarray(tensor.numpy())
        nan, inf = bool(np.isnan(values).any()), bool(np.isinf(values).any())
        if nan or inf:
            kind = 'Inf and NaN' if nan and inf else 'NaN' if nan else 'Inf'
            text = '%s : Tensor had %s values [Op:CheckNumerics]' % (message, kind)
            if name:
                text += ' name: ' + name
            raise _invalid_argument(text)
        return tf.identity(tensor)
    _dbg.check_numerics_node(tensor, message)
    return tf.identity(tensor, name=name)


def is_nan(x, name=None):
    """Returns which elements of x are NaN."""
    return tf.not_equal(x, x)


def is_inf(x, name=None):
    """Returns which elements of x are Inf."""
    return tf.equal(tf.abs(x), float('inf'))


def is_finite(x, name=None):
    """Returns which elements of x are finite."""
    return tf.less(tf.abs(x), float('inf'))


debugging = _submodule('debugging', 'Public API for tf._api.v2.debugging namespace')
_export(debugging, assert_equal, assert_none_equal, assert_less, assert_less_equal,
        assert_greater, assert_greater_equal, assert_positive, assert_negative,
        assert_non_negative, assert_non_positive, assert_rank, assert_rank_at_least,
        assert_rank_in, assert_type, assert_integer, assert_scalar, assert_shapes, Assert,
        check_numerics, is_nan, is_inf, is_finite)
_export(tf, assert_equal, assert_less, assert_greater, assert_rank, Assert, executing_eagerly,
        inside_function, name_scope, device, Graph)
_compat = _submodule('compat', 'Compatibility functions.')
_v1 = getattr(_compat, 'v1', None)
if not isinstance(_v1, types.ModuleType):
    _v1 = types.ModuleType('tensorflow.compat.v1')
    sys.modules['tensorflow.compat.v1'] = _v1
    _compat.v1 = _v1
_export(_v1, get_default_graph)
tf.debugging.is_numeric_tensor = lambda t: isinstance(t, tf.Tensor) and t.dtype in (
    tf.float32, tf.float64, tf.int32, tf.int64)
_export(tf.math, is_nan, is_inf, is_finite)


# ---- tf.config -------------------------------------------------------------------------------

PhysicalDevice = collections.namedtuple('PhysicalDevice', ['name', 'device_type'])
LogicalDevice = collections.namedtuple('LogicalDevice', ['name', 'device_type'])
_CPU = PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')
_CPU_LOGICAL = LogicalDevice(name='/device:CPU:0', device_type='CPU')


def list_physical_devices(device_type=None):
    """Return a list of physical devices visible to the host runtime."""
    return [_CPU] if device_type in (None, 'CPU') else []


def list_logical_devices(device_type=None):
    """Return a list of logical devices created by runtime."""
    return [_CPU_LOGICAL] if device_type in (None, 'CPU') else []


def get_visible_devices(device_type=None):
    """Get the list of visible physical devices."""
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None):
    """Set the list of visible devices: Trellis has the CPU only, which stays visible."""
    return None


_memory_growth = {}


def set_memory_growth(device, enable):
    """Set if memory growth should be enabled for a PhysicalDevice."""
    if device not in list_physical_devices():
        raise ValueError('Unrecognized device: %s' % repr(device))
    _memory_growth[device] = bool(enable)


def get_memory_growth(device):
    """Get if memory growth is enabled for a PhysicalDevice."""
    if device not in list_physical_devices():
        raise ValueError('Unrecognized device: %s' % repr(device))
    return _memory_growth.get(device, None)


_config_experimental = getattr(tf.config, 'experimental', None)
if not isinstance(_config_experimental, types.ModuleType):
    _config_experimental = types.ModuleType('tensorflow.config.experimental')
    sys.modules['tensorflow.config.experimental'] = _config_experimental
    tf.config.experimental = _config_experimental
_export(tf.config, list_physical_devices, list_logical_devices, get_visible_devices,
        set_visible_devices)
tf.config.PhysicalDevice = PhysicalDevice
tf.config.LogicalDevice = LogicalDevice
_export(_config_experimental, list_physical_devices, list_logical_devices, get_visible_devices,
        set_visible_devices, set_memory_growth, get_memory_growth)


# ---- tf.py_function and tf.numpy_function ----------------------------------------------------

def _call_python(func, inp, Tout, as_numpy, name, node_name):
    """Runs func on the eager values of inp: now, or (while tracing) each time the graph runs,
    through an EagerPyFunc node (tf-debugging.c), as TensorFlow's script_ops does."""
    is_list = isinstance(Tout, (list, tuple))
    dtypes = [tf.as_dtype(d) for d in Tout] if is_list else \
        ([] if Tout is None else [tf.as_dtype(Tout)])

    def runner(*args):
        if as_numpy:
            args = [a.numpy() for a in args]
        result = func(*args)
        if not dtypes:
            return []
        if not is_list or not isinstance(result, (list, tuple)):
            result = [result]
        return [tf.convert_to_tensor(r, dtype=d) for r, d in zip(result, dtypes)]

    args = [tf.convert_to_tensor(v) for v in inp]
    if executing_eagerly():
        outs = runner(*args)
    else:
        outs = _dbg.py_func_node(runner, args, dtypes, name or node_name)
    if is_list:
        return outs
    return outs[0] if outs else None


def py_function(func=None, inp=None, Tout=None, name=None):
    """Wraps a python function into a TensorFlow op that executes it eagerly."""
    return _call_python(func, inp or [], Tout, False, name, 'EagerPyFunc')


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Wraps a python function and uses it as a TensorFlow op."""
    return _call_python(func, inp or [], Tout, True, name, 'PyFunc')


_export(tf, py_function, numpy_function)


# ---- small math ------------------------------------------------------------------------------

def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Computes the variance of elements across dimensions of a tensor."""
    input_tensor = tf.convert_to_tensor(input_tensor)
    means = tf.reduce_mean(input_tensor, axis=axis, keepdims=True)
    if means.dtype.is_integer:
        raise TypeError('Input must be either real or complex. Received integer type {}.'
                        .format(means.dtype))
    squared = tf.square(input_tensor - means)
    return tf.reduce_mean(squared, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Computes the standard deviation of elements across dimensions of a tensor."""
    return tf.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def elu(features, name=None):
    """Computes the exponential linear function: x if x > 0, exp(x) - 1 otherwise."""
    features = tf.convert_to_tensor(features)
    return tf.where(features > 0, features, tf.exp(tf.minimum(features, 0)) - 1)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """Clips tensor values to a maximum L2-norm."""
    values = tf.convert_to_tensor(t)
    l2sum = tf.reduce_sum(values * values, axes, keepdims=True)
    pred = l2sum > 0
    l2sum_safe = tf.where(pred, l2sum, tf.ones_like(l2sum))
    l2norm = tf.where(pred, tf.sqrt(l2sum_safe), l2sum)
    clip_norm = tf.cast(clip_norm, values.dtype)
    return tf.identity(values * clip_norm / tf.maximum(l2norm, clip_norm))


def gather_nd(params, indices, batch_dims=0, name=None):
    """Gather slices from `params` into a Tensor with shape specified by `indices`."""
    if batch_dims != 0:
        raise NotImplementedError('Trellis supports tf.gather_nd with batch_dims=0 only')
    params = tf.convert_to_tensor(params)
    indices = tf.convert_to_tensor(indices)
    depth = indices.shape[-1]
    dims = params.shape.as_list()
    if depth is None or None in dims[:depth]:
        raise NotImplementedError('Trellis needs the index depth and the indexed dimensions of '
                                  'tf.gather_nd known while tracing')
    if depth > len(dims):
        raise _invalid_argument(
            'index innermost dimension length must be <= params rank; saw: %d vs. %d '
            '[Op:GatherNd]' % (depth, len(dims)))
    strides = []
    for j in range(depth):
        stride = 1
        for d in dims[j + 1:depth]:
            stride *= d
        strides.append(stride)
    linear = tf.reduce_sum(indices * tf.constant(strides, dtype=indices.dtype), axis=-1)
    flat = tf.reshape(params, [-1] + [d if d is not None else -1 for d in dims[depth:]])
    return tf.gather(flat, linear)


# ---- complex numbers: math_ops.py's wrappers of the Real, Imag, Angle, Conj and Complex ops
# (tf._real... in tf-ops.c), which pass real inputs through as TensorFlow does ---------------

def real(input, name=None):  # pylint: disable=redefined-builtin
    """Returns the real part of a complex (or real) tensor."""
    input = tf.convert_to_tensor(input, name='input')
    if input.dtype.is_complex:
        return tf._real(input, name=name or 'Real')
    if input.dtype.is_floating or input.dtype.is_integer:
        return input
    raise TypeError('input must be a numeric tensor, but got tensor with dtype {}'
                    .format(input.dtype))


def imag(input, name=None):  # pylint: disable=redefined-builtin
    """Returns the imaginary part of a complex (or real) tensor."""
    input = tf.convert_to_tensor(input, name='input')
    if input.dtype.is_complex:
        return tf._imag(input, name=name or 'Imag')
    return tf.zeros_like(input)


def angle(input, name=None):  # pylint: disable=redefined-builtin
    """Returns the element-wise argument of a complex (or real) tensor."""
    input = tf.convert_to_tensor(input, name='input')
    if input.dtype.is_complex:
        return tf._angle(input, name=name or 'Angle')
    return tf.where(input < 0, _np().pi * tf.ones_like(input), tf.zeros_like(input))


def conj(x, name=None):
    """Returns the complex conjugate of a complex number."""
    x = tf.convert_to_tensor(x, name='x')
    if x.dtype.is_complex:
        return tf._conj(x, name=name or 'Conj')
    if x.dtype.is_floating or x.dtype.is_integer:
        return x
    raise TypeError(f'Expected numeric or variant tensor, got dtype {x.dtype!r}.')


def complex(real, imag, name=None):  # pylint: disable=redefined-builtin,redefined-outer-name
    """Converts two real numbers to a complex number."""
    real = tf.convert_to_tensor(real, name='real')
    imag = tf.convert_to_tensor(imag, name='imag')
    if (real.dtype, imag.dtype) not in ((tf.float32, tf.float32), (tf.float64, tf.float64)):
        raise TypeError(
            f'The `real` and `imag` components have incorrect types: '
            f'{real.dtype.name} {imag.dtype.name}. They must be consistent, and '
            f'one of {[tf.float32, tf.float64]}')
    return tf._complex(real, imag, name=name or 'Complex')


def tensordot(a, b, axes, name=None):
    """Tensor contraction of a and b along the given axes (math_ops.tensordot: the free and
    contracted axes transposed together, reshaped to matrices, one matmul, reshaped back)."""
    a = tf.convert_to_tensor(a, name='a')
    b = tf.convert_to_tensor(b, name='b')
    ra, rb = a.shape.rank, b.shape.rank
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError(f'`axes` must be at least 0. Received: {axes}.')
        if axes > ra:
            raise ValueError(f'`axes` must not be larger than the number of dimensions of '
                             f'tensor {a}.  Received {axes}, vs tensor dimensions {ra}.')
        a_axes, b_axes = list(range(ra - axes, ra)), list(range(axes))
    else:
        if len(axes) != 2:
            raise ValueError(f'`axes` must be an integer or have length 2. Received {axes}.')
        a_axes, b_axes = ([x] if isinstance(x, int) else list(x) for x in axes)
        if len(a_axes) != len(b_axes):
            raise ValueError(f'Different number of contraction axes `a` and `b`, '
                             f'{len(a_axes)} != {len(b_axes)}.')
    a_axes = [x % ra for x in a_axes] if ra else a_axes
    b_axes = [x % rb for x in b_axes] if rb else b_axes
    free_a = [i for i in range(ra) if i not in a_axes]
    free_b = [i for i in range(rb) if i not in b_axes]
    sa, sb = a.shape.as_list(), b.shape.as_list()

    def prod(dims):
        p = 1
        for d in dims:
            p *= d
        return p

    at = tf.reshape(tf.transpose(a, free_a + a_axes),
                    [prod(sa[i] for i in free_a), prod(sa[i] for i in a_axes)])
    bt = tf.reshape(tf.transpose(b, b_axes + free_b),
                    [prod(sb[i] for i in b_axes), prod(sb[i] for i in free_b)])
    return tf.reshape(tf.matmul(at, bt), [sa[i] for i in free_a] + [sb[i] for i in free_b])


def l2_loss(t, name=None):
    """Computes half the L2 norm of a tensor without the sqrt: sum(t ** 2) / 2."""
    t = tf.convert_to_tensor(t)
    return tf.reduce_sum(t * t) / tf.constant(2, t.dtype)


# ---- pooling and embedding lookups (nn_ops.py's functions, composed of slices) --------------

def _pool_sizes(value, name, n):
    """ksize or strides: an int, or a list of 1, n or n + 2 ints (the batch and channel ones
    first and last), as nn_ops._get_sequence reads them."""
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    if len(value) == 1:
        return value * n
    if len(value) == n:
        return value
    if len(value) == n + 2:
        return value[1:-1]
    raise ValueError(f'{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} '
                     f'of length {len(value)}')


def _pool(x, ksize, strides, padding, kind, n):
    """Max or average pooling of NHWC (NWC) data: the maximum, or the mean over the window's
    elements inside the input (SAME padding never counts the padding), of each window, taken as
    ksize strided slices of the (padded) input."""
    x = tf.convert_to_tensor(x)
    rank = x.shape.rank
    if rank is not None and rank != n + 2:
        raise ValueError(f'`input.shape.rank` must be {n + 2}. Received: input.shape={x.shape} '
                         f'of rank {rank}')
    k = _pool_sizes(ksize, 'ksize', n)
    s = _pool_sizes(strides, 'strides', n)
    padding = padding.upper() if isinstance(padding, str) else padding
    if padding not in ('VALID', 'SAME'):
        raise ValueError(f"`padding` must be 'VALID' or 'SAME'. Received: padding={padding}")
    dims = x.shape.as_list()[1:-1]
    if None in dims:
        raise NotImplementedError('Trellis pools over spatial dimensions known while tracing')
    low = x.dtype.min if kind == 'max' else 0
    out_sizes, ones = [], None
    if kind == 'avg':
        ones = tf.ones([1] + dims + [1], x.dtype)
    for axis, (size, kk, ss) in enumerate(zip(dims, k, s), start=1):
        if padding == 'VALID':
            out = (size - kk) // ss + 1
            before = after = 0
        else:
            out = -(-size // ss)
            total = max((out - 1) * ss + kk - size, 0)
            before, after = total // 2, total - total // 2
        if out <= 0:
            raise tf.errors.InvalidArgumentError(
                None, None, 'Computed output size would be negative: %d [input_size: %d, '
                'effective_filter_size: %d, stride: %d]' % (out - 1, size, kk, ss))
        out_sizes.append(out)
        if before or after:
            edge = tf.zeros_like(tf.gather(x, [0], axis=axis)) + tf.constant(low, x.dtype)
            x = tf.concat([edge] * before + [x] + [edge] * after, axis)
            if ones is not None:
                zero = tf.zeros_like(tf.gather(ones, [0], axis=axis))
                ones = tf.concat([zero] * before + [ones] + [zero] * after, axis)
    import itertools
    result = count = None
    for offset in itertools.product(*[range(kk) for kk in k]):
        index = (slice(None),) + tuple(
            slice(o, o + ss * (out - 1) + 1, ss) for o, ss, out in zip(offset, s, out_sizes)
        ) + (slice(None),)
        window = x[index]
        if kind == 'max':
            result = window if result is None else tf.maximum(result, window)
        else:
            result = window if result is None else result + window
            count = ones[index] if count is None else count + ones[index]
    return result if kind == 'max' else result / count


def max_pool2d(input, ksize, strides, padding, data_format='NHWC', name=None):  # pylint: disable=redefined-builtin
    """Performs max pooling on 2D spatial data such as images (NHWC)."""
    if data_format != 'NHWC':
        raise NotImplementedError('Trellis pools NHWC data only')
    return _pool(input, ksize, strides, padding, 'max', 2)


def avg_pool2d(input, ksize, strides, padding, data_format='NHWC', name=None):  # pylint: disable=redefined-builtin
    """Performs the average pooling on the input (NHWC)."""
    if data_format != 'NHWC':
        raise NotImplementedError('Trellis pools NHWC data only')
    return _pool(input, ksize, strides, padding, 'avg', 2)


def max_pool1d(input, ksize, strides, padding, data_format='NWC', name=None):  # pylint: disable=redefined-builtin
    """Performs the max pooling on the input (NWC)."""
    return _pool(input, ksize, strides, padding, 'max', 1)


def avg_pool1d(input, ksize, strides, padding, data_format='NWC', name=None):  # pylint: disable=redefined-builtin
    """Performs the average pooling on the input (NWC)."""
    return _pool(input, ksize, strides, padding, 'avg', 1)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Looks up embeddings for the given ids from a tensor of embeddings (one tensor)."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError('Trellis looks up embeddings in one tensor only')
        params = params[0]
    return tf.gather(params, ids)


_export(tf.nn, max_pool2d, avg_pool2d, max_pool1d, avg_pool1d, embedding_lookup)
_export(tf.math, reduce_variance, reduce_std, real, imag, angle, conj)
_export(tf, tensordot)
_export(tf.linalg, tensordot)
_export(tf.nn, l2_loss)
_export(tf.nn, elu)
_export(tf, clip_by_norm, gather_nd, complex)
_export(tf.dtypes, complex)
