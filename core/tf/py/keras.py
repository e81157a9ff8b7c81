"""tf.keras: the layers (Dense, Conv2D, Sequential) and optimizers (SGD, Adam) of SPEC §2.

This file is compiled into the `tensorflow` extension as a string (core/tf/py/embed.py) and
run by tf-keras.c in the namespace of the `tensorflow.keras` module the first time an attribute
of it or of one of its submodules is looked up, so that `import tensorflow` stays fast. The
submodule objects (layers, optimizers, activations, initializers, backend, models) already exist
when it runs, in sys.modules too: this file fills them (see the end). It follows Keras 2
(tf.keras of TensorFlow 2.11 to 2.15):

- A Layer is a tf.Module. Its weights are tf.Variables made on the first call, from the input's
  shape (build); their initial values are computed eagerly (a callable initial value), so a
  layer first called inside a tf.function obeys the Function's singleton-variable rule.
- An optimizer makes its step counter and slot variables (SGD's momentum, Adam's m and v) on the
  first apply_gradients that sees a variable. Called from a traced function, that is inside the
  trace, so a second optimizer given to the same Function raises TensorFlow's ValueError.
- Update rules and error texts are Keras's.
"""
import math
import re
import sys

import tensorflow as tf


def _warn(text):
    print("WARNING:tensorflow:" + text, file=sys.stderr)


# ---- names -------------------------------------------------------------------------------------

_name_counts = {}


def _to_snake_case(name):
    """Keras's layer and initializer names: `Conv2D` -> `conv2d`, `GlorotUniform` ->
    `glorot_uniform`."""
    intermediate = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return snake if not snake.startswith("_") else "private" + snake


def _unique_name(base):
    count = _name_counts.get(base, 0)
    _name_counts[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


def clear_session():
    """Resets the layer-name counters (the next Dense is `dense` again)."""
    _name_counts.clear()


def _shape_text(shape):
    return str(tuple(shape))


def _variable_base_name(variable):
    return variable.name.partition(":")[0]


# ---- activations -------------------------------------------------------------------------------


def linear(x):
    """Linear activation: returns its input unchanged."""
    return x


def relu(x):
    """Rectified linear unit: max(x, 0)."""
    return tf.nn.relu(x)


def tanh(x):
    """Hyperbolic tangent."""
    return tf.tanh(x)


def sigmoid(x):
    """Sigmoid: 1 / (1 + exp(-x))."""
    return tf.sigmoid(x)


def softmax(x, axis=-1):
    """Softmax over `axis` (the last one by default)."""
    return tf.nn.softmax(x, axis=axis)


_ACTIVATIONS = {"linear": linear, "relu": relu, "tanh": tanh, "sigmoid": sigmoid,
                "softmax": softmax}


def _unknown_object(kind, name):
    return ValueError("Unknown %s: %r. Please ensure you are using a "
                      "`keras.utils.custom_object_scope` and that this object is included in "
                      "the scope. See https://www.tensorflow.org/guide/keras/"
                      "save_and_serialize#registering_the_custom_object for details." % (kind, name))


def get_activation(identifier):
    """The activation function an identifier names: None, a name or a callable."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        if identifier not in _ACTIVATIONS:
            raise _unknown_object("activation function", identifier)
        return _ACTIVATIONS[identifier]
    if callable(identifier):
        return identifier
    raise TypeError("Could not interpret activation function identifier: %s" % (identifier,))


# ---- initializers ------------------------------------------------------------------------------


class Initializer:
    """Base class of weight initializers: `init(shape, dtype)` returns a tensor."""

    def __call__(self, shape, dtype=None):
        raise NotImplementedError("Initializer subclasses must implement `__call__()`.")


class Zeros(Initializer):
    """Initializes to 0."""

    def __call__(self, shape, dtype=None):
        return tf.zeros(shape, dtype=dtype or tf.float32)


class Ones(Initializer):
    """Initializes to 1."""

    def __call__(self, shape, dtype=None):
        return tf.ones(shape, dtype=dtype or tf.float32)


class Constant(Initializer):
    """Initializes every element to `value`."""

    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return tf.fill(shape, tf.cast(self.value, dtype or tf.float32))


class RandomUniform(Initializer):
    """Uniform values in [minval, maxval)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed

    def __call__(self, shape, dtype=None):
        return tf.random.uniform(shape, self.minval, self.maxval, dtype=dtype or tf.float32,
                                 seed=self.seed)


class RandomNormal(Initializer):
    """Normal values with the given mean and standard deviation."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed

    def __call__(self, shape, dtype=None):
        return tf.random.normal(shape, self.mean, self.stddev, dtype=dtype or tf.float32,
                                seed=self.seed)


def _fans(shape):
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class GlorotUniform(Initializer):
    """Glorot (Xavier) uniform: U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, seed=None):
        self.seed = seed

    def __call__(self, shape, dtype=None):
        fan_in, fan_out = _fans(list(shape))
        limit = math.sqrt(6.0 / max(1.0, (fan_in + fan_out)))
        return tf.random.uniform(shape, -limit, limit, dtype=dtype or tf.float32, seed=self.seed)


_INITIALIZERS = {"zeros": Zeros, "ones": Ones, "constant": Constant,
                 "random_uniform": RandomUniform, "uniform": RandomUniform,
                 "random_normal": RandomNormal, "normal": RandomNormal,
                 "glorot_uniform": GlorotUniform}


def get_initializer(identifier):
    """The initializer an identifier names: None, a name (`'zeros'`, `'GlorotUniform'`) or a
    callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        key = _to_snake_case(identifier)
        if key not in _INITIALIZERS:
            raise _unknown_object("initializer", identifier)
        return _INITIALIZERS[key]()
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret initializer identifier: %s" % (identifier,))


# ---- layers ------------------------------------------------------------------------------------


class InputSpec:
    """What a layer accepts: a rank (`ndim`, or at least `min_ndim`) and fixed sizes of axes."""

    def __init__(self, ndim=None, min_ndim=None, axes=None):
        self.ndim = ndim
        self.min_ndim = min_ndim
        self.axes = axes or {}

    def check(self, x, layer_name):
        shape = x.shape
        prefix = 'Input 0 of layer "%s" is incompatible with the layer: ' % layer_name
        if self.ndim is not None and shape.rank != self.ndim:
            raise ValueError(prefix + "expected ndim=%d, found ndim=%d. Full shape received: %s"
                             % (self.ndim, shape.rank, _shape_text(shape)))
        if self.min_ndim is not None and shape.rank < self.min_ndim:
            raise ValueError(prefix + "expected min_ndim=%d, found ndim=%d. Full shape received: "
                             "%s" % (self.min_ndim, shape.rank, _shape_text(shape)))
        for axis, value in self.axes.items():
            got = shape[axis]
            if got is not None and got != value:
                raise ValueError(prefix + "expected axis %d of input shape to have value %d, but "
                                 "received input with shape %s" % (axis, value, _shape_text(shape)))


_LAYER_KWARGS = ("input_shape", "batch_input_shape", "batch_size", "input_dim", "weights",
                 "activity_regularizer", "autocast", "implementation")


def _layer_dtype(dtype):
    if dtype is None:
        return tf.float32
    if isinstance(dtype, str):
        if dtype not in ("float32", "float64"):
            raise TypeError("Cannot convert value %r to a TensorFlow DType." % (dtype,))
        return getattr(tf, dtype)
    return dtype


def _flatten(structure):
    """The leaves of nested lists, tuples and dicts (dicts by sorted key, as tf.nest)."""
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _flatten(structure[key])]
    return [structure]


def _map_structure(fn, structure):
    """`structure` with every leaf replaced by fn(leaf); namedtuples keep their type."""
    if isinstance(structure, list):
        return [_map_structure(fn, item) for item in structure]
    if isinstance(structure, tuple):
        items = [_map_structure(fn, item) for item in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if isinstance(structure, dict):
        return {key: _map_structure(fn, value) for key, value in structure.items()}
    return fn(structure)


# The training mode of the outermost layer call in progress (Keras's call context): a layer
# whose `call` takes `training` and is called without it gets the enclosing call's value.
_training_stack = []


def _format_argument(value):
    # A KerasTensor shows as the placeholder Keras traces the layer with.
    if isinstance(value, (tf.Tensor, tf.Variable)) or _is_keras_tensor(value):
        return "tf.Tensor(shape=%s, dtype=%s)" % (value.shape, value.dtype.name)
    return repr(value)


def _with_call_context(error, display_name, fn, args, kwargs):
    """Keras's error wrapping: the innermost failing layer call re-raises its exception with the
    layer's name and the arguments it received (keras/utils/traceback_utils.py)."""
    import inspect
    if getattr(error, "_keras_call_info_injected", False):
        return error
    try:
        signature = inspect.signature(fn)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return error
    context = []
    for parameter in signature.parameters.values():
        if parameter.name in bound.arguments:
            value = _map_structure(_format_argument, bound.arguments[parameter.name])
        else:
            value = parameter.default
        context.append("  \u2022 %s=%s" % (parameter.name, value))
    if not context:
        return error
    if isinstance(error, tf.errors.OpError):
        message = error.message
    elif error.args:
        message = error.args[0]
    else:
        message = ""
    message = ("Exception encountered when calling %s.\n\n%s\n\nCall arguments received by %s:\n%s"
               % (display_name, message, display_name, "\n".join(context)))
    if isinstance(error, tf.errors.OpError):
        new_error = type(error)(error.node_def, error.op, message, error.error_code)
    else:
        try:
            new_error = type(error)(message)
        except TypeError:
            new_error = RuntimeError(message)
    new_error._keras_call_info_injected = True
    return new_error


class Layer(tf.Module):
    """Base class of Keras layers: weights made by `build(input_shape)` on the first call,
    then `call(inputs)` on every call.

    Like Keras 2, a layer tracks what its attributes hold: tf.Variables (its own weights, after
    those add_weight made) and other layers (its sublayers, in the order they were first
    assigned), directly or inside lists, tuples and dicts. Raw tf.Modules are not tracked."""

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        for key in kwargs:
            if key not in _LAYER_KWARGS:
                raise TypeError("Keyword argument not understood:", key)
        if name is None:
            name = _unique_name(_to_snake_case(type(self).__name__))
        super().__init__(name=name)
        self._trainable = bool(trainable)
        self.built = False
        self.input_spec = None
        self._dtype = _layer_dtype(dtype)
        self._own_weights = []
        self._losses = []
        self._inbound_nodes = []
        self._batch_input_shape = None
        if "batch_input_shape" in kwargs:
            self._batch_input_shape = tuple(kwargs["batch_input_shape"])
        elif "input_shape" in kwargs or "input_dim" in kwargs:
            shape = kwargs.get("input_shape")
            if shape is None:
                shape = (kwargs["input_dim"],)
            self._batch_input_shape = (kwargs.get("batch_size"),) + tuple(shape)

    @property
    def name(self):
        return vars(self).get("_name") or _to_snake_case(type(self).__name__)

    @property
    def dtype(self):
        """The dtype of the layer's weights, as a name (`'float32'`)."""
        dtype = vars(self).get("_dtype", tf.float32)
        return getattr(dtype, "name", dtype)

    @property
    def trainable(self):
        return vars(self).get("_trainable", True)

    @trainable.setter
    def trainable(self, value):
        for layer in self._flatten_layers():
            layer._trainable = bool(value)

    def add_weight(self, name=None, shape=None, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None, **kwargs):
        """Makes a tf.Variable `<layer>/<name>` of `shape`, initialised by `initializer`
        (glorot_uniform for floats, zeros otherwise), and tracks it. Regularizers and constraints
        are not supported."""
        if regularizer is not None or constraint is not None:
            raise ValueError("Trellis's Keras has no weight regularizers or constraints.")
        name = "Variable" if name is None else name
        trainable = True if trainable is None else trainable
        shape = [int(d) for d in (shape or ())]
        dtype = tf.as_dtype(dtype) if dtype is not None else self._dtype
        init = get_initializer(initializer)
        if init is None:
            init = GlorotUniform() if dtype.is_floating else Zeros()
        # A weight made while the layer builds itself on its first call gets the layer's name
        # scope (`dense/kernel`, `my_model/dense/kernel` nested) from tf.Variable; one made
        # elsewhere (in __init__, or by a build called directly) keeps its name.
        variable = tf.Variable(lambda: init(shape, dtype=dtype), name=name, trainable=trainable,
                               dtype=dtype)
        self._own_weights.append(variable)
        return variable

    def build(self, input_shape):
        """Makes the layer's weights for inputs of `input_shape`; the base class has none."""
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The layer's computation; the base class returns its input."""
        return inputs

    def _prepare_input(self, inputs):
        if isinstance(inputs, (list, tuple)) and all(
                isinstance(leaf, (int, float, bool)) for leaf in _flatten(inputs)):
            inputs = tf.convert_to_tensor(inputs)  # nested Python numbers: one tensor
        if isinstance(inputs, (list, tuple, dict)):
            return _map_structure(self._prepare_input, inputs)
        if _is_keras_tensor(inputs):
            return inputs
        if not isinstance(inputs, (tf.Tensor, tf.Variable)):
            inputs = tf.convert_to_tensor(inputs)
        if inputs.dtype.is_floating and inputs.dtype != self._dtype:
            inputs = tf.cast(inputs, self._dtype)
        return inputs

    def _maybe_build(self, inputs):
        if self.built:
            return
        shapes = _map_structure(lambda t: t.shape, inputs)
        # As Keras: weights are made eagerly even when the first call is being traced.
        with tf._layer_name_scope(self.name):
            if _keras_step:
                # In a step fit, evaluate or predict traces, weights are made eagerly, as
                # Keras's maybe_init_scope does. In a user's tf.function they stay in the trace,
                # where the Function's singleton-variable rule applies.
                with tf.init_scope():
                    self.build(shapes)
            else:
                self.build(shapes)
        self.built = True

    def _call_accepts(self, name):
        import inspect
        try:
            return name in inspect.signature(self.call).parameters
        except (TypeError, ValueError):
            return False

    def __call__(self, *args, **kwargs):
        if args:
            inputs, args = args[0], args[1:]
        elif "inputs" in kwargs:
            inputs = kwargs.pop("inputs")
        else:
            raise ValueError("The first argument to `Layer.call` must always be passed.")
        inputs = self._prepare_input(inputs)
        if any(_is_keras_tensor(t) for t in _flatten(inputs)):
            return _functional_call(self, inputs, args, kwargs)
        training = kwargs.pop("training", None)
        if training is None and _training_stack:
            training = _training_stack[-1]
        # As Keras, `training` reaches call only if call declares it.
        if training is not None and self._call_accepts("training"):
            kwargs["training"] = training
        if self.input_spec is not None and not isinstance(inputs, (list, tuple, dict)):
            self.input_spec.check(inputs, self.name)
        if not self.built:
            self._maybe_build(inputs)
            if self.input_spec is not None and not isinstance(inputs, (list, tuple, dict)):
                self.input_spec.check(inputs, self.name)
        outer = not _training_stack
        if outer:
            for layer in self._flatten_layers():
                layer._losses = []
        _training_stack.append(training)
        try:
            # Sublayers first built inside call nest in this layer's scope (Keras 2's
            # `my_model/dense/kernel`).
            with tf._layer_name_scope(self.name):
                return self.call(inputs, *args, **kwargs)
        except Exception as error:
            display = "layer '%s' (type %s)" % (self.name, type(self).__name__)
            new_error = _with_call_context(error, display, self.call, (inputs,) + args, kwargs)
            if new_error is error:
                raise
            raise new_error.with_traceback(error.__traceback__) from None
        finally:
            _training_stack.pop()

    # ---- tracking

    def _tracked_values(self):
        """What the attributes hold, in assignment order, lists and dicts opened."""
        out = []
        for key, value in vars(self).items():
            if key in ("_inbound_nodes", "_outbound", "_keras_history", "_call_outputs"):
                continue
            out.extend(_flatten(value) if isinstance(value, (list, tuple, dict)) else [value])
        return out

    def _direct_sublayers(self):
        seen = set()
        out = []
        for value in self._tracked_values():
            if (isinstance(value, Layer) and value is not self and id(value) not in seen
                    and not getattr(value, "_is_metric", False)):
                seen.add(id(value))
                out.append(value)
        return out

    def _flatten_layers(self, include_self=True, recursive=True):
        """This layer (first) and its sublayers, depth first in tracking order."""
        seen = set()
        out = []

        def visit(layer, depth):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            out.append(layer)
            if recursive or depth == 0:
                for sub in layer._direct_sublayers():
                    visit(sub, depth + 1)

        visit(self, 0)
        return out if include_self else out[1:]

    def _own_variables(self):
        out = list(self._own_weights)
        for value in self._tracked_values():
            if isinstance(value, tf.Variable) and not any(value is w for w in out):
                out.append(value)
        return out

    @staticmethod
    def _dedup(weights):
        seen = set()
        out = []
        for w in weights:
            if id(w) not in seen:
                seen.add(id(w))
                out.append(w)
        return out

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        own = [w for w in self._own_variables() if w.trainable]
        for sub in self._direct_sublayers():
            own += sub.trainable_weights
        return self._dedup(own)

    @property
    def non_trainable_weights(self):
        if not self.trainable:
            out = self._own_variables()
            for sub in self._direct_sublayers():
                out += sub.weights
            return self._dedup(out)
        out = [w for w in self._own_variables() if not w.trainable]
        for sub in self._direct_sublayers():
            out += sub.non_trainable_weights
        return self._dedup(out)

    @property
    def weights(self):
        """Trainable then non-trainable weights, the layer's own before its sublayers'."""
        return self._dedup(self.trainable_weights + self.non_trainable_weights)

    # Keras's layers answer lists (a tf.Module answers tuples).
    @property
    def variables(self):
        return self.weights

    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    @property
    def submodules(self):
        """Every layer inside this one, depth first (a tuple, as tf.Module's)."""
        return tuple(self._flatten_layers(include_self=False))

    @property
    def losses(self):
        """The losses add_loss recorded during the last call, this layer's and its
        sublayers'."""
        out = []
        for layer in self._flatten_layers():
            out += layer._losses
        return out

    def add_loss(self, loss):
        """Records `loss` (a scalar tensor, or a callable returning one) for the training
        loop; layer.losses lists it until the next top-level call."""
        if callable(loss):
            loss = loss()
        self._losses.append(tf.convert_to_tensor(loss))

    def get_weights(self):
        """The weights' values, as NumPy arrays."""
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights):
        """Assigns each weight the value at the same place in `weights`."""
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(
                "You called `set_weights(weights)` on layer \"%s\" with a weight list of length "
                "%d, but the layer was expecting %d weights. Provided weights: %s..."
                % (self.name, len(weights), len(params), str(weights)[:50]))
        for param, value in zip(params, weights):
            shape = tuple(getattr(value, "shape", ()))
            if tuple(param.shape) != shape:
                raise ValueError("Layer %s weight shape %s is not compatible with provided "
                                 "weight shape %s." % (self.name, tuple(param.shape), shape))
            param.assign(value)

    def count_params(self):
        """The number of scalars in the layer's weights."""
        if not self.built:
            raise ValueError("You tried to call `count_params` on layer %s, but the layer isn't "
                             "built. You can build it manually via: `%s.build(batch_input_shape)`."
                             % (self.name, self.name))
        return int(sum(math.prod(w.shape) for w in self.weights))

    def get_config(self):
        """The layer's constructor arguments (the base ones: name, trainable, dtype)."""
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer made from get_config()'s dictionary."""
        return cls(**config)

    # ---- the functional API's view of a layer

    def _node_attribute(self, attribute, what):
        if not self._inbound_nodes:
            raise AttributeError("Layer %s is not connected, no input to return." % self.name
                                 if what == "input" else
                                 "Layer %s has no inbound nodes." % self.name)
        return getattr(self._inbound_nodes[0], attribute)

    @property
    def input(self):
        """The KerasTensor(s) this layer was first called on (functional API)."""
        if not self._inbound_nodes:
            raise AttributeError("Layer %s is not connected, no input to return." % self.name)
        return self._inbound_nodes[0].input_tensors

    @property
    def output(self):
        """The KerasTensor(s) the layer's first functional call made."""
        if not self._inbound_nodes:
            raise AttributeError("Layer %s has no inbound nodes." % self.name)
        return self._inbound_nodes[0].output_tensors

    @property
    def output_shape(self):
        if not self._inbound_nodes:
            raise AttributeError('The layer "%s" has never been called and thus has no defined '
                                 'output shape.' % self.name)
        shapes = [node.output_shapes for node in self._inbound_nodes]
        if any(str(s) != str(shapes[0]) for s in shapes):
            raise AttributeError('The layer "%s" has multiple inbound nodes, with different '
                                 'output shapes. Hence the notion of "output shape" is '
                                 'ill-defined for the layer. Use `get_output_shape_at(node_index)` '
                                 'instead.' % self.name)
        return shapes[0]

    def __repr__(self):
        return "<%s.%s object at 0x%x>" % (type(self).__module__, type(self).__qualname__,
                                            id(self))


def _is_keras_tensor(value):
    return type(value).__name__ == "KerasTensor" and hasattr(value, "_keras_history")


def _functional_call(layer, inputs, args, kwargs):
    # Defined by keras_training.py (the functional API), which runs after this file.
    return _functional_construction_call(layer, inputs, args, kwargs)


class Dense(Layer):
    """A densely-connected layer: activation(inputs @ kernel + bias)."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        self.units = units if isinstance(units, int) else int(units)
        if self.units < 0:
            raise ValueError("Received an invalid value for `units`, expected a positive integer. "
                             "Received: units=%s" % (units,))
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        last_dim = input_shape[-1]
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             "defined. Found None. Full input shape received: %s"
                             % _shape_text(input_shape))
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight("kernel", [last_dim, self.units],
                                      initializer=self.kernel_initializer)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer)
        self.built = True

    def call(self, inputs):
        if inputs.dtype != self._dtype:
            inputs = tf.cast(inputs, self._dtype)
        outputs = tf.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = outputs + self.bias
        return self.activation(outputs)


def _normalize_tuple(value, n, name):
    message = "The `%s` argument must be a tuple of %d integers. Received %s=%s" % (
        name, n, name, value)
    if isinstance(value, int):
        values = (value,) * n
    else:
        if not isinstance(value, (list, tuple)) or len(value) != n:
            raise ValueError(message)
        for item in value:
            if not isinstance(item, int):
                raise ValueError(message + " including element %s of type %s" % (item, type(item)))
        values = tuple(value)
    bad = [v for v in values if v <= 0]
    if bad:
        raise ValueError(message + " including {%s} that does not satisfy the requirement `> 0`."
                         % ", ".join(str(v) for v in sorted(set(bad))))
    return values


def _normalize_padding(value):
    padding = value.lower() if isinstance(value, str) else value
    if padding not in ("valid", "same"):
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", "same" '
                         '(or "causal", only for `Conv1D). Received: %s' % (padding,))
    return padding


class Conv2D(Layer):
    """2-D convolution over NHWC images: activation(conv2d(inputs, kernel) + bias)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        if isinstance(filters, float):
            filters = int(filters)
        if filters is not None and filters <= 0:
            raise ValueError("Invalid value for argument `filters`. Expected a strictly positive "
                             "value. Received filters=%s." % (filters,))
        self.filters = filters
        self.kernel_size = _normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = _normalize_tuple(strides, 2, "strides")
        self.padding = _normalize_padding(padding)
        if data_format not in (None, "channels_last"):
            raise ValueError("Trellis runs Conv2D on channels_last (NHWC) data only. Received: "
                             "data_format=%s" % (data_format,))
        self.data_format = "channels_last"
        self.dilation_rate = _normalize_tuple(dilation_rate, 2, "dilation_rate")
        if self.dilation_rate != (1, 1):
            raise ValueError("Trellis's Conv2D has no dilation. Received: dilation_rate=%s"
                             % (dilation_rate,))
        self.groups = groups
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError("The number of groups must be a positive integer. Received: "
                             "groups=%s." % (groups,))
        if filters % groups != 0:
            raise ValueError("The number of filters must be evenly divisible by the number of "
                             "groups. Received: groups=%s, filters=%s." % (groups, filters))
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.input_spec = InputSpec(min_ndim=4)

    def _output_size(self, size, kernel, stride):
        if size is None:
            return None
        if self.padding == "same":
            return (size + stride - 1) // stride
        return (size - kernel + stride) // stride

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. The "
                             "input_shape received is %s, where axis -1 (0-based) is the channel "
                             "dimension, which found to be `None`." % _shape_text(input_shape))
        if channels % self.groups != 0:
            raise ValueError("The number of input channels must be evenly divisible by the "
                             "number of groups. Received groups=%d, but the input has %d "
                             "channels (full input shape is %s)."
                             % (self.groups, channels, _shape_text(input_shape)))
        dims = list(input_shape)
        out = [self._output_size(dims[1 + i], self.kernel_size[i], self.strides[i])
               for i in range(2)]
        if len(dims) == 4 and any(o is not None and o <= 0 for o in out):
            raise ValueError("One of the dimensions in the output is <= 0 due to downsampling in "
                             "%s. Consider increasing the input size. Received input shape %s "
                             "which would produce output shape with a zero or negative value in a "
                             "dimension." % (self.name, _shape_text(input_shape)))
        self.input_spec = InputSpec(min_ndim=4, axes={-1: channels})
        self.kernel = self.add_weight(
            "kernel", list(self.kernel_size) + [channels // self.groups, self.filters],
            initializer=self.kernel_initializer)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer)
        self.built = True

    def call(self, inputs):
        outputs = tf.nn.conv2d(inputs, self.kernel, strides=list(self.strides),
                               padding=self.padding.upper())
        if self.use_bias:
            outputs = outputs + self.bias
        return self.activation(outputs)


# ---- optimizers --------------------------------------------------------------------------------


class _CallableList(list):
    """A list that also answers `optimizer.variables()`, as Keras's does."""

    def __call__(self):
        return self


class Optimizer:
    """Base class of Keras optimizers: `apply_gradients(zip(grads, vars))` runs one step.

    The step counter `iterations` and the slot variables are made by the first
    apply_gradients (or build) that sees a variable."""

    def __init__(self, name, learning_rate=0.001, **kwargs):
        for key in kwargs:
            if key in ("decay", "gradient_aggregator", "gradient_transformers"):
                raise ValueError("%s is deprecated in the new Keras optimizer, please check the "
                                 "docstring for valid arguments, or use the legacy optimizer, "
                                 "e.g., tf.keras.optimizers.legacy.%s." % (key, type(self).__name__))
            raise TypeError("%s is not a valid argument, kwargs should be empty  for "
                            "`optimizer_experimental.Optimizer`." % key)
        self.name = name
        self._slot_variables = []
        self._iterations = None
        self._index = {}
        self._tracked = []
        self._learning_rate = self._build_learning_rate(learning_rate)

    def _build_learning_rate(self, learning_rate):
        if callable(learning_rate) and not isinstance(learning_rate, tf.Variable):
            return learning_rate
        with tf.init_scope():
            return tf.Variable(learning_rate, name="learning_rate", dtype=tf.float32,
                               trainable=False)

    @property
    def learning_rate(self):
        """The learning rate: a tf.Variable, or the schedule given to the constructor."""
        return self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(self._learning_rate, tf.Variable) and not callable(value):
            self._learning_rate.assign(value)
        else:
            self._learning_rate = self._build_learning_rate(value)

    def _current_learning_rate(self, dtype):
        lr = self._learning_rate
        if not isinstance(lr, tf.Variable):
            lr = lr(self.iterations)
        return tf.cast(lr, dtype)

    @property
    def iterations(self):
        """The number of steps applied (an int64 tf.Variable made on first use)."""
        if self._iterations is None:
            self._iterations = tf.Variable(0, name="iteration", dtype=tf.int64, trainable=False)
        return self._iterations

    @property
    def variables(self):
        """The optimizer's variables: the step counter, then each tracked variable's slots."""
        counter = [] if self._iterations is None else [self._iterations]
        return _CallableList(counter + self._slot_variables)

    def add_variable_from_reference(self, model_variable, variable_name, initial_value=None):
        """A slot variable `<variable_name>/<model variable>` shaped like `model_variable`
        (zeros unless `initial_value` is given)."""
        if initial_value is None:
            shape = model_variable.shape
            dtype = model_variable.dtype
            initial_value = lambda: tf.zeros(shape, dtype=dtype)
        slot = tf.Variable(initial_value,
                           name="%s/%s" % (variable_name, _variable_base_name(model_variable)),
                           dtype=model_variable.dtype, trainable=False)
        self._slot_variables.append(slot)
        return slot

    def _create_slots(self, variable):
        return []

    def build(self, var_list):
        """Makes the step counter and the slots of every variable of `var_list` not seen yet."""
        self.iterations  # made first: the counter leads `variables`
        for variable in var_list:
            if not isinstance(variable, tf.Variable):
                raise TypeError("An optimizer updates tf.Variables only. Received: %r"
                                % (variable,))
            if id(variable) in self._index:
                continue
            self._index[id(variable)] = len(self._tracked)
            self._tracked.append((variable, self._create_slots(variable)))

    def _slots(self, variable):
        return self._tracked[self._index[id(variable)]][1]

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False):
        """Applies one update to each variable from its gradient; returns the step counter's new
        value. Pairs whose gradient is None are skipped (with a warning)."""
        pairs = list(grads_and_vars)
        if not pairs:
            return self.iterations
        for pair in pairs:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError("apply_gradients expects (gradient, variable) pairs. "
                                 "Received: %r" % (pair,))
        self.build([v for g, v in pairs])
        present = [(g, v) for g, v in pairs if g is not None]
        if not present:
            raise ValueError("No gradients provided for any variable: %s. Provided "
                             "`grads_and_vars` is %s."
                             % (([v.name for g, v in pairs],), tuple(tuple(p) for p in pairs)))
        if len(present) < len(pairs):
            _warn("Gradients do not exist for variables %s when minimizing the loss. If you're "
                  "using `model.compile()`, did you forget to provide a `loss` argument?"
                  % ([v.name for g, v in pairs if g is None],))
        # The update's ops are in the optimizer's name scope, as Keras's ("SGD/mul").
        with tf.name_scope(name or getattr(self, "name", None) or "optimizer"):
            for gradient, variable in present:
                gradient = tf.convert_to_tensor(gradient, dtype_hint=variable.dtype)
                self.update_step(gradient, variable)
            return self.iterations.assign_add(1)

    def update_step(self, gradient, variable):
        raise NotImplementedError("Optimizer subclasses must implement `update_step()`.")

    def compute_gradients(self, loss, var_list, tape=None):
        """(gradient, variable) pairs of `loss` (a tensor with its `tape`, or a callable)."""
        if not callable(loss) and tape is None:
            raise ValueError("`tape` is required when a `Tensor` loss is passed. Received: "
                             "loss=%s, tape=%s." % (loss, tape))
        if callable(var_list):
            var_list = var_list()
        if tape is None:
            if not hasattr(tf, "GradientTape"):
                raise NotImplementedError("minimize needs tf.GradientTape")
            with tf.GradientTape() as tape:
                loss = loss()
        grads = tape.gradient(loss, list(var_list))
        return list(zip(grads, var_list))

    def minimize(self, loss, var_list, tape=None):
        """compute_gradients then apply_gradients."""
        return self.apply_gradients(self.compute_gradients(loss, var_list, tape))


class SGD(Optimizer):
    """Gradient descent, with momentum and Nesterov momentum as options."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError("`momentum` must be between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def _create_slots(self, variable):
        if self.momentum == 0:
            return []
        return [self.add_variable_from_reference(variable, "m")]

    def update_step(self, gradient, variable):
        lr = self._current_learning_rate(variable.dtype)
        slots = self._slots(variable)
        if not slots:
            variable.assign_add(-gradient * lr)
            return
        m = slots[0]
        momentum = tf.cast(self.momentum, variable.dtype)
        m.assign(-gradient * lr + m * momentum)
        if self.nesterov:
            variable.assign_add(-gradient * lr + m * momentum)
        else:
            variable.assign_add(m)


class Adam(Optimizer):
    """Adam: per-variable step sizes from running means of the gradient (m) and of its square
    (v), bias-corrected by the step count."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
                 name="Adam", **kwargs):
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def _create_slots(self, variable):
        slots = [self.add_variable_from_reference(variable, "m"),
                 self.add_variable_from_reference(variable, "v")]
        if self.amsgrad:
            slots.append(self.add_variable_from_reference(variable, "vhat"))
        return slots

    def update_step(self, gradient, variable):
        dtype = variable.dtype
        lr = self._current_learning_rate(dtype)
        local_step = tf.cast(self.iterations + 1, dtype)
        beta_1_power = tf.pow(tf.cast(self.beta_1, dtype), local_step)
        beta_2_power = tf.pow(tf.cast(self.beta_2, dtype), local_step)
        slots = self._slots(variable)
        m = slots[0]
        v = slots[1]
        alpha = lr * tf.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((tf.square(gradient) - v) * (1 - self.beta_2))
        if self.amsgrad:
            v_hat = slots[2]
            v_hat.assign(tf.maximum(v_hat, v))
            v = v_hat
        variable.assign_sub((m * alpha) / (tf.sqrt(v) + self.epsilon))


class RMSprop(Optimizer):
    """RMSprop: each step divided by the root of a running mean of squared gradients."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                 name="RMSprop", **kwargs):
        super().__init__(name=name, learning_rate=learning_rate, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def _create_slots(self, variable):
        slots = [self.add_variable_from_reference(variable, "velocity")]
        if self.momentum > 0:
            slots.append(self.add_variable_from_reference(variable, "momentum"))
        if self.centered:
            slots.append(self.add_variable_from_reference(variable, "average_gradient"))
        return slots

    def update_step(self, gradient, variable):
        lr = self._current_learning_rate(variable.dtype)
        slots = list(self._slots(variable))
        velocity = slots.pop(0)
        momentum = slots.pop(0) if self.momentum > 0 else None
        average = slots.pop(0) if self.centered else None
        rho = self.rho
        velocity.assign(velocity * rho + tf.square(gradient) * (1 - rho))
        if average is not None:
            average.assign(average * rho + gradient * (1 - rho))
            denominator = velocity - tf.square(average) + self.epsilon
        else:
            denominator = velocity + self.epsilon
        increment = lr * gradient / tf.sqrt(denominator)
        if momentum is not None:
            momentum.assign(momentum * self.momentum + increment)
            variable.assign_add(-momentum)
        else:
            variable.assign_add(-increment)


_OPTIMIZERS = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}


def get_optimizer(identifier):
    """An optimizer from a name (`'adam'`, `'sgd'`) or an optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _OPTIMIZERS:
        return _OPTIMIZERS[identifier.lower()]()
    raise ValueError("Could not interpret optimizer identifier: %s" % (identifier,))


# ---- the submodules ----------------------------------------------------------------------------
# tf-keras.c made these module objects (and put them in sys.modules) before this file ran.


def _export(module, members):
    """Sets `members` in `module`; what this file defines takes the name of the first module it
    is exported from (`<class 'tensorflow.keras.layers.Dense'>`)."""
    for value in members.values():
        if getattr(value, "__module__", None) == __name__:
            value.__module__ = module.__name__
    vars(module).update(members)


_export(activations, {
    "get": get_activation, "linear": linear, "relu": relu, "tanh": tanh, "sigmoid": sigmoid,
    "softmax": softmax})
_export(initializers, {
    "get": get_initializer, "Initializer": Initializer, "Zeros": Zeros, "zeros": Zeros,
    "Ones": Ones, "ones": Ones, "Constant": Constant, "constant": Constant,
    "RandomUniform": RandomUniform, "random_uniform": RandomUniform,
    "RandomNormal": RandomNormal, "random_normal": RandomNormal,
    "GlorotUniform": GlorotUniform, "glorot_uniform": GlorotUniform})
_export(layers, {
    "Layer": Layer, "InputSpec": InputSpec, "Dense": Dense, "Conv2D": Conv2D,
    "Convolution2D": Conv2D})
_export(optimizers, {
    "Optimizer": Optimizer, "SGD": SGD, "Adam": Adam, "RMSprop": RMSprop, "get": get_optimizer})
_export(backend, {"clear_session": clear_session, "floatx": lambda: "float32"})
