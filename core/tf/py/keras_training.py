"""tf.keras, second part: models (Model subclassing, Sequential, the functional API), losses,
metrics, callbacks and the training loop (compile, fit, evaluate, predict).

tf-keras.c runs this file after keras.py, in the same namespace (tensorflow.keras's), so Layer,
the initializers and the optimizers defined there are at hand. It follows Keras 2.15 (the
tf.keras of TensorFlow 2.15): keras/engine/{training,functional,sequential,input_layer}.py,
keras/losses.py, keras/metrics, keras/callbacks.py, keras/utils/generic_utils.py (Progbar) and
keras/utils/layer_utils.py (summary), in behaviour and message texts. Not modelled: saving,
distribution strategies, masks, sample_weight_mode, class_weight, steps_per_execution.

- The functional API: `Input` makes a KerasTensor (a shape and a dtype, no value). A layer
  called on KerasTensors builds its weights eagerly for the input shapes, then traces its `call`
  once as a tf.Function over TensorSpecs of those shapes to learn its output shapes; the call is
  recorded as a Node. A functional Model runs the recorded nodes, deepest first.
- fit runs `train_step` inside a tf.function (unless compiled with run_eagerly=True), as Keras
  does; the optimizer's slots are made on the first trace.
"""
import collections
import math
import random
import re
import sys
import time

import numpy as np


# ---- the functional API ------------------------------------------------------------------------

KerasHistory = collections.namedtuple("KerasHistory", ["layer", "node_index", "tensor_index"])


class KerasTensor:
    """A symbolic tensor of the functional API: a shape and a dtype, and the layer call that
    made it (`_keras_history`)."""

    def __init__(self, shape, dtype, name=None):
        self._shape = tf.TensorShape(shape)
        self._dtype = tf.as_dtype(dtype)
        self._name = name

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def type_spec(self):
        return tf.TensorSpec(self._shape, self._dtype, name=self._name)

    @property
    def node(self):
        layer, node_index, _ = self._keras_history
        return layer._inbound_nodes[node_index]

    def __repr__(self):
        made_by = ""
        if hasattr(self, "_keras_history"):
            made_by = " (created by layer '%s')" % self._keras_history.layer.name
        return "<KerasTensor: shape=%s dtype=%s%s>" % (self._shape, self._dtype.name, made_by)

    def __str__(self):
        name = "" if self._name is None else ", name='%s'" % self._name
        made_by = ""
        if hasattr(self, "_keras_history"):
            made_by = ", description=\"created by layer '%s'\"" % self._keras_history.layer.name
        return "KerasTensor(type_spec=%s%s%s)" % (self.type_spec, name, made_by)

    def __len__(self):
        raise TypeError("Keras symbolic inputs/outputs do not implement `__len__`. You may be "
                        "trying to pass Keras symbolic inputs/outputs to a TF API that does not "
                        "register dispatching, preventing Keras from automatically converting "
                        "the API call to a lambda layer in the Functional Model. This error will "
                        "also get raised if you try asserting a symbolic input/output directly.")

    def __array__(self, dtype=None):
        raise TypeError(
            "You are passing %r, an intermediate Keras symbolic input/output, to a TF API that "
            "does not allow registering custom dispatchers, such as `tf.cond`, `tf.function`, "
            "gradient tapes, or `tf.map_fn`. Keras Functional model construction only supports "
            "TF API calls that *do* support dispatching, such as `tf.math.add` or "
            "`tf.reshape`. Other APIs cannot be called directly on symbolic Keras"
            "inputs/outputs. You can work around this limitation by putting the operation in a "
            "custom Keras layer `call` and calling that layer on this symbolic input/output."
            % (self,))


class Node:
    """One call of a layer in a functional graph: its inputs and outputs (KerasTensors) and the
    other arguments it was given."""

    def __init__(self, layer, input_tensors, output_tensors, call_args=(), call_kwargs=None):
        self.layer = layer
        self.input_tensors = input_tensors
        self.output_tensors = output_tensors
        self.call_args = call_args
        self.call_kwargs = call_kwargs or {}
        self.is_input = isinstance(layer, InputLayer)
        self.keras_inputs = [t for t in _flatten(input_tensors) if _is_keras_tensor(t)]
        node_index = len(layer._inbound_nodes)
        layer._inbound_nodes.append(self)
        for i, tensor in enumerate(_flatten(output_tensors)):
            tensor._keras_history = KerasHistory(layer, node_index, i)

    @property
    def parent_nodes(self):
        return [t.node for t in self.keras_inputs]

    @property
    def output_shapes(self):
        return _map_structure(lambda t: tuple(t.shape.as_list()), self.output_tensors)

    def iterate_inbound(self):
        for t in self.keras_inputs:
            yield t._keras_history.layer, t._keras_history.node_index, t._keras_history.tensor_index


def _keras_error_during_construction(layer, error, inputs, args, kwargs):
    display = 'layer "%s" (type %s)' % (layer.name, type(layer).__name__)
    return _with_call_context(error, display, layer.call, (inputs,) + tuple(args), kwargs)


def _functional_construction_call(layer, inputs, args, kwargs):
    """`layer(inputs)` on KerasTensors: builds the layer, learns its output shapes by tracing its
    call over TensorSpecs, and records the call as a Node."""
    if layer.input_spec is not None and not isinstance(inputs, (list, tuple, dict)):
        layer.input_spec.check(inputs, layer.name)
    layer._maybe_build(inputs)
    if layer.input_spec is not None and not isinstance(inputs, (list, tuple, dict)):
        layer.input_spec.check(inputs, layer.name)
    specs = _map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype) if _is_keras_tensor(t)
                           else t, inputs)
    traced_kwargs = dict(kwargs)
    if "training" not in traced_kwargs and layer._call_accepts("training"):
        traced_kwargs["training"] = False

    def trace(x):
        return layer.call(x, *args, **traced_kwargs)

    try:
        with tf.init_scope():
            concrete = tf.function(trace).get_concrete_function(specs)
    except Exception as error:
        new_error = _keras_error_during_construction(layer, error, inputs, args, kwargs)
        if new_error is error:
            raise
        raise new_error.with_traceback(error.__traceback__) from None
    outputs = _map_structure(lambda t: KerasTensor(t.shape, t.dtype), concrete.structured_outputs)
    Node(layer, inputs, outputs, args, kwargs)
    return outputs


class InputLayer(Layer):
    """The layer an `Input` comes from: it has no weights and no computation."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, name=None,
                 batch_input_shape=None, **kwargs):
        if name is None:
            # Keras's backend.get_uid("input"): one-based, "input_1" first.
            count = _name_counts.get("input", 0) + 1
            _name_counts["input"] = count
            name = "input_%d" % count
        super().__init__(name=name, dtype=dtype)
        if batch_input_shape is None:
            batch_input_shape = (batch_size,) + tuple(input_shape or ())
        self._batch_input_shape = tuple(batch_input_shape)
        self.built = True
        self._input_tensor = KerasTensor(self._batch_input_shape, dtype or tf.float32, name=name)
        Node(self, [], [self._input_tensor])

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": False, "ragged": False, "name": self.name}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,
          ragged=None, type_spec=None, batch_shape=None, **kwargs):
    """A symbolic input of a functional Model: `Input(shape=(784,))` stands for tensors of shape
    (batch, 784)."""
    if kwargs:
        raise ValueError("Unrecognized keyword arguments: %s" % (list(kwargs.keys()),))
    if sparse or ragged or tensor is not None or type_spec is not None:
        raise ValueError("Trellis's Keras Input takes dense shapes only.")
    if shape is not None and batch_shape is not None:
        raise ValueError("Only provide the `shape` OR `batch_shape` argument to Input, not both "
                         "at the same time.")
    if shape is None and batch_shape is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` "
                         "argument. Note that `shape` does not include the batch dimension.")
    if isinstance(shape, int):
        shape = (shape,)
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       batch_input_shape=batch_shape)
    return layer._input_tensor


def _build_graph(inputs, outputs):
    """Keras's _map_graph_network: the nodes by depth (outputs at 0) and the layers, deepest
    first, in the order a depth-first walk from the outputs met them."""
    finished, in_progress = set(), set()
    ordered_nodes = []
    layer_indices = {}

    def visit(tensor):
        layer, node_index, _ = tensor._keras_history
        node = layer._inbound_nodes[node_index]
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError("Tensor %s from layer \"%s\" is part of a cycle." % (tensor,
                                                                                  layer.name))
        layer_indices.setdefault(id(layer), (len(layer_indices), layer))
        in_progress.add(id(node))
        if not node.is_input:
            for t in node.keras_inputs:
                visit(t)
        finished.add(id(node))
        in_progress.discard(id(node))
        ordered_nodes.append(node)

    for t in _flatten(outputs):
        if not _is_keras_tensor(t):
            raise ValueError("Output tensors of a Functional model must be the output of a "
                             "TensorFlow `Layer` (thus holding past layer metadata). Found: %s"
                             % (t,))
        visit(t)
    node_depth, layer_depth = {}, {}
    for node in reversed(ordered_nodes):
        depth = node_depth.setdefault(id(node), (0, node))[0]
        depth = max(depth, layer_depth.get(id(node.layer), (0, None))[0])
        layer_depth[id(node.layer)] = (depth, node.layer)
        node_depth[id(node)] = (depth, node)
        for parent in node.parent_nodes:
            previous = node_depth.get(id(parent), (0, parent))[0]
            node_depth[id(parent)] = (max(depth + 1, previous), parent)
    for t in _flatten(inputs):
        layer = t._keras_history.layer
        if id(layer) not in layer_depth:
            layer_depth[id(layer)] = (0, layer)
            layer_indices[id(layer)] = (-1, layer)
            node_depth[id(layer._inbound_nodes[0])] = (0, layer._inbound_nodes[0])
    nodes_by_depth = collections.defaultdict(list)
    for depth, node in node_depth.values():
        nodes_by_depth[depth].append(node)
    layers_by_depth = collections.defaultdict(list)
    for depth, layer in layer_depth.values():
        layers_by_depth[depth].append(layer)
    layers = []
    for depth in sorted(layers_by_depth, reverse=True):
        layers += sorted(layers_by_depth[depth], key=lambda l: layer_indices[id(l)][0])
    # Every input the outputs need must be one of `inputs`.
    given = {id(t) for t in _flatten(inputs)}
    for depth in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[depth]:
            if node.is_input:
                for t in _flatten(node.output_tensors):
                    if id(t) not in given:
                        raise ValueError(
                            "Graph disconnected: cannot obtain value for tensor %r at layer "
                            "\"%s\". The following previous layers were accessed without issue: "
                            "%s" % (t, node.layer.name, []))
    return dict(nodes_by_depth), layers


# ---- more layers -------------------------------------------------------------------------------


class Flatten(Layer):
    """Flattens each example: (batch, d1, d2, ...) -> (batch, d1 * d2 * ...)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)

    def call(self, inputs):
        shape = inputs.shape.as_list()
        if len(shape) == 1:
            return tf.expand_dims(inputs, 1)
        rest = shape[1:]
        if None in rest:
            raise ValueError("Trellis's Flatten needs the non-batch dimensions known. Received "
                             "shape %s" % (tuple(shape),))
        return tf.reshape(inputs, [-1, math.prod(rest)])


class Activation(Layer):
    """Applies an activation function (a name such as "relu", or a callable)."""

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = get_activation(activation)

    def call(self, inputs):
        return self.activation(inputs)


class Lambda(Layer):
    """Wraps an expression as a layer: Lambda(lambda x: x ** 2)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}

    def call(self, inputs):
        return self.function(inputs, **self.arguments)


class Dropout(Layer):
    """Zeroes a fraction `rate` of the inputs while training (scaling the rest by
    1 / (1 - rate)); the identity otherwise."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError("Invalid value received for argument `rate`. Expected a float value "
                             "between 0 and 1. Received: rate=%s" % (rate,))
        self.rate = rate
        self.seed = seed

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return tf.identity(inputs)
        keep = tf.cast(tf.random.uniform(tf.shape(inputs), seed=self.seed) >= self.rate,
                       inputs.dtype)
        return inputs * keep / (1.0 - self.rate)


class Embedding(Layer):
    """Turns indices into dense vectors of size `output_dim` (a lookup in the `embeddings`
    weight, input_dim x output_dim, uniform in [-0.05, 0.05) by default)."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,) if isinstance(input_length, int) \
                else tuple(input_length)
        if input_dim <= 0 or output_dim <= 0:
            raise ValueError("Both `input_dim` and `output_dim` should be positive, Received "
                             "input_dim = %s and output_dim = %s" % (input_dim, output_dim))
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = get_initializer(embeddings_initializer)
        self.mask_zero = mask_zero
        self.input_length = input_length

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(
            "embeddings", shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer)
        self.built = True

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return tf.not_equal(inputs, 0)

    def call(self, inputs):
        if inputs.dtype not in (tf.int32, tf.int64):
            inputs = tf.cast(inputs, tf.int32)
        return tf.nn.embedding_lookup(self.embeddings, inputs)


class _Pooling(Layer):
    """MaxPooling and AveragePooling over `rank` spatial dimensions (channels_last): the window
    `pool_size`, moved by `strides` (default: pool_size)."""

    _kind = "max"
    _rank = 2

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError("Trellis pools channels_last data only. Received: data_format=%s"
                             % (data_format,))
        if strides is None:
            strides = pool_size
        self.pool_size = _normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = _normalize_tuple(strides, self._rank, "strides")
        self.padding = _normalize_padding(padding)
        self.data_format = "channels_last"
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs):
        pool = {("max", 2): tf.nn.max_pool2d, ("avg", 2): tf.nn.avg_pool2d,
                ("max", 1): tf.nn.max_pool1d, ("avg", 1): tf.nn.avg_pool1d}[(self._kind, self._rank)]
        return pool(inputs, list(self.pool_size), list(self.strides), self.padding.upper())


class MaxPooling2D(_Pooling):
    """Max pooling operation for 2D spatial data."""


class AveragePooling2D(_Pooling):
    """Average pooling operation for 2D spatial data."""
    _kind = "avg"


class MaxPooling1D(_Pooling):
    """Max pooling operation for 1D temporal data."""
    _rank = 1

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last",
                 **kwargs):
        super().__init__(pool_size, strides, padding,
                         None if data_format == "channels_last" else data_format, **kwargs)


class AveragePooling1D(MaxPooling1D):
    """Average pooling for temporal data."""
    _kind = "avg"


class _GlobalPooling(Layer):
    """The mean (or maximum) over every spatial dimension of channels_last data; `keepdims`
    keeps them as size 1."""

    _reduce = "mean"
    _rank = 2

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise ValueError("Trellis pools channels_last data only. Received: data_format=%s"
                             % (data_format,))
        self.data_format = "channels_last"
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs):
        axes = list(range(1, self._rank + 1))
        if self._reduce == "mean":
            return tf.reduce_mean(inputs, axis=axes, keepdims=self.keepdims)
        return tf.reduce_max(inputs, axis=axes, keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling):
    """Global average pooling operation for spatial data."""


class GlobalMaxPooling2D(_GlobalPooling):
    """Global max pooling operation for spatial data."""
    _reduce = "max"


class GlobalAveragePooling1D(_GlobalPooling):
    """Global average pooling operation for temporal data."""
    _rank = 1

    def __init__(self, data_format="channels_last", **kwargs):
        super().__init__(None if data_format == "channels_last" else data_format, **kwargs)


class GlobalMaxPooling1D(GlobalAveragePooling1D):
    """Global max pooling operation for 1D temporal data."""
    _reduce = "max"


class _Merge(Layer):
    def _check(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError("A merge layer should be called on a list of inputs. Received: "
                             "inputs=%s (not a list of tensors)" % (inputs,))
        if len(inputs) < 1:
            raise ValueError("A merge layer should be called on a list of at least 1 input. Got "
                             "%d inputs. Full input_shape received: %s" % (len(inputs), inputs))


class Add(_Merge):
    """Adds a list of tensors of the same shape."""

    def call(self, inputs):
        self._check(inputs)
        out = inputs[0]
        for t in inputs[1:]:
            out = out + t
        return out


class Concatenate(_Merge):
    """Concatenates a list of tensors along `axis` (the last by default)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        self._check(inputs)
        return tf.concat(list(inputs), axis=self.axis)


def add(inputs, **kwargs):
    """The functional form of Add."""
    return Add(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """The functional form of Concatenate."""
    return Concatenate(axis=axis, **kwargs)(inputs)


# ---- losses ------------------------------------------------------------------------------------

_EPSILON = 1e-7


class Reduction:
    """How a Loss reduces the per-example losses: AUTO (= SUM_OVER_BATCH_SIZE), NONE, SUM,
    SUM_OVER_BATCH_SIZE."""
    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError('Invalid Reduction Key: %s. Expected keys are "%s"'
                             % (key, cls.all()))


def _rank(t):
    return t.shape.rank


def _squeeze_or_expand(y_pred, y_true=None, sample_weight=None):
    """Keras's losses_utils.squeeze_or_expand_dimensions: drops a trailing 1 so that y_true and
    y_pred have the same rank, then fits sample_weight's rank to y_pred's."""
    if y_true is not None:
        diff = _rank(y_pred) - _rank(y_true)
        if diff == -1 and y_true.shape[-1] == 1:
            y_true = tf.squeeze(y_true, [-1])
        elif diff == 1 and y_pred.shape[-1] == 1:
            y_pred = tf.squeeze(y_pred, [-1])
    if sample_weight is not None and _rank(sample_weight) not in (0, None):
        diff = _rank(sample_weight) - _rank(y_pred)
        if diff == 1:
            sample_weight = tf.squeeze(sample_weight, [-1])
        elif diff == -1:
            sample_weight = tf.expand_dims(sample_weight, -1)
    return y_pred, y_true, sample_weight


def _num_elements(t):
    """The number of elements of `t` as a scalar of its dtype; counted with a sum while tracing
    with dimensions unknown."""
    dims = t.shape.as_list()
    if None not in dims:
        return tf.cast(math.prod(dims), t.dtype)
    return tf.reduce_sum(tf.ones_like(t))


def _batch_size(t):
    """The size of `t`'s first dimension as a float32 scalar."""
    dims = t.shape.as_list()
    if dims[0] is not None:
        return tf.constant(float(dims[0]))
    rest = math.prod(d for d in dims[1:]) if None not in dims[1:] else None
    if rest:
        return tf.reduce_sum(tf.ones_like(tf.cast(t, tf.float32))) / float(rest)
    return tf.cast(tf.shape(t)[0], tf.float32)


def _div_no_nan(a, b):
    safe = tf.where(tf.equal(b, 0), tf.ones_like(b), b)
    return tf.where(tf.equal(b, 0), tf.zeros_like(a), a / safe)


def _compute_weighted_loss(losses, sample_weight, reduction):
    losses = tf.convert_to_tensor(losses)
    if not losses.dtype.is_floating:
        losses = tf.cast(losses, tf.float32)
    if sample_weight is not None:
        sample_weight = tf.cast(tf.convert_to_tensor(sample_weight), losses.dtype)
        losses, _, sample_weight = _squeeze_or_expand(losses, None, sample_weight)
        losses = losses * sample_weight
    if reduction == Reduction.NONE:
        return losses
    total = tf.reduce_sum(losses)
    if reduction == Reduction.SUM:
        return total
    return _div_no_nan(total, _num_elements(losses))


def _prepare_pair(y_true, y_pred):
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    """mean(square(y_true - y_pred), axis=-1)."""
    y_true, y_pred = _prepare_pair(y_true, y_pred)
    return tf.reduce_mean(tf.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    """mean(abs(y_true - y_pred), axis=-1)."""
    y_true, y_pred = _prepare_pair(y_true, y_pred)
    return tf.reduce_mean(tf.abs(y_pred - y_true), axis=-1)


def _log_softmax(x, axis=-1):
    shifted = x - tf.reduce_max(x, axis=axis, keepdims=True)
    return shifted - tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=axis, keepdims=True))


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The binary cross-entropy of each example, averaged over `axis`."""
    y_true, y_pred = _prepare_pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        # sigmoid_cross_entropy_with_logits: max(x, 0) - x * z + log(1 + exp(-|x|))
        losses = (tf.maximum(y_pred, 0.0) - y_pred * y_true
                  + tf.math.log(1.0 + tf.exp(-tf.abs(y_pred))))
    else:
        p = tf.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON)
        losses = -(y_true * tf.math.log(p + _EPSILON)
                   + (1.0 - y_true) * tf.math.log(1.0 - p + _EPSILON))
    return tf.reduce_mean(losses, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The cross-entropy between one-hot labels and predicted class probabilities (or
    logits)."""
    y_true, y_pred = _prepare_pair(y_true, y_pred)
    if label_smoothing:
        classes = tf.cast(tf.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        return -tf.reduce_sum(y_true * _log_softmax(y_pred, axis), axis=axis)
    p = y_pred / tf.reduce_sum(y_pred, axis=axis, keepdims=True)
    p = tf.clip_by_value(p, _EPSILON, 1.0 - _EPSILON)
    return -tf.reduce_sum(y_true * tf.math.log(p), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1,
                                    ignore_class=None):
    """The cross-entropy between integer labels and predicted class probabilities (or
    logits)."""
    y_pred = tf.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = tf.cast(y_pred, tf.float32)
    labels = tf.convert_to_tensor(y_true)
    if labels.dtype.is_floating:
        labels = tf.cast(labels, tf.int64)
    labels = tf.cast(labels, tf.int32)
    if _rank(labels) == _rank(y_pred):
        labels = tf.squeeze(labels, [-1])
    logits = y_pred
    if not from_logits:
        logits = tf.math.log(tf.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON))
    classes = y_pred.shape[-1]
    return -tf.reduce_sum(tf.one_hot(labels, classes, dtype=y_pred.dtype)
                          * _log_softmax(logits, -1), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error


class Loss:
    """Base class of losses: `loss(y_true, y_pred, sample_weight=None)` computes `call`'s
    per-example losses, weights them, and reduces them as `reduction` says."""

    def __init__(self, reduction=Reduction.AUTO, name=None):
        Reduction.validate(reduction)
        self.reduction = reduction
        self.name = name

    def __call__(self, y_true, y_pred, sample_weight=None):
        losses = self.call(y_true, y_pred)
        reduction = self.reduction
        if reduction == Reduction.AUTO:
            reduction = Reduction.SUM_OVER_BATCH_SIZE
        return _compute_weighted_loss(losses, sample_weight, reduction)

    def call(self, y_true, y_pred):
        raise NotImplementedError("Must be implemented in subclasses.")

    def get_config(self):
        return {"reduction": self.reduction, "name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class LossFunctionWrapper(Loss):
    """A Loss computing `fn(y_true, y_pred, **kwargs)`."""

    def __init__(self, fn, reduction=Reduction.AUTO, name=None, **kwargs):
        super().__init__(reduction=reduction, name=name)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        if isinstance(y_true, (tf.Tensor, tf.Variable)) and isinstance(y_pred,
                                                                         (tf.Tensor, tf.Variable)):
            y_pred, y_true, _ = _squeeze_or_expand(y_pred, y_true)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = dict(self._fn_kwargs)
        config.update(super().get_config())
        return config


class MeanSquaredError(LossFunctionWrapper):
    """mean(square(y_true - y_pred))."""

    def __init__(self, reduction=Reduction.AUTO, name="mean_squared_error"):
        super().__init__(mean_squared_error, name=name, reduction=reduction)


class MeanAbsoluteError(LossFunctionWrapper):
    """mean(abs(y_true - y_pred))."""

    def __init__(self, reduction=Reduction.AUTO, name="mean_absolute_error"):
        super().__init__(mean_absolute_error, name=name, reduction=reduction)


class BinaryCrossentropy(LossFunctionWrapper):
    """Cross-entropy between 0/1 labels and predicted probabilities (or logits)."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction=Reduction.AUTO, name="binary_crossentropy"):
        super().__init__(binary_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy between one-hot labels and predictions."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction=Reduction.AUTO, name="categorical_crossentropy"):
        super().__init__(categorical_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy between integer labels and predictions."""

    def __init__(self, from_logits=False, ignore_class=None, reduction=Reduction.AUTO,
                 name="sparse_categorical_crossentropy"):
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits


_LOSS_FUNCTIONS = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "MSE": mean_squared_error, "mean_absolute_error": mean_absolute_error,
    "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}
_LOSS_CLASSES = {
    "MeanSquaredError": MeanSquaredError, "MeanAbsoluteError": MeanAbsoluteError,
    "BinaryCrossentropy": BinaryCrossentropy, "CategoricalCrossentropy": CategoricalCrossentropy,
    "SparseCategoricalCrossentropy": SparseCategoricalCrossentropy,
}


def get_loss(identifier):
    """A loss from a name ("mse", "MeanSquaredError"), a Loss or a function."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier in _LOSS_FUNCTIONS:
            return _LOSS_FUNCTIONS[identifier]
        if identifier in _LOSS_CLASSES:
            return _LOSS_CLASSES[identifier]()
        raise _unknown_object("loss function", identifier)
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret loss function identifier: %s" % (identifier,))


# ---- metrics -----------------------------------------------------------------------------------


class Metric(Layer):
    """Base class of metrics: state in variables, `update_state(...)` accumulates,
    `result()` reads, `reset_state()` starts over; calling one does update_state then
    result."""
    _is_metric = True

    def __init__(self, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.built = True

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def add_weight(self, name, shape=(), initializer="zeros", dtype=None, **kwargs):
        # Metrics make their variables outside any function being traced, as Keras does.
        with tf.init_scope():
            return super().add_weight(name=name, shape=shape, initializer=initializer,
                                      dtype=dtype, trainable=False)

    def reset_state(self):
        """Sets every state variable back to 0."""
        for v in self._own_weights:
            v.assign(tf.zeros(v.shape, dtype=v.dtype))

    def update_state(self, *args, **kwargs):
        raise NotImplementedError("Must be implemented in subclasses.")

    def result(self):
        raise NotImplementedError("Must be implemented in subclasses.")

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}


class Reduce(Metric):
    """Sum or (weighted) mean of all the values seen."""

    def __init__(self, reduction, name, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.reduction = reduction
        self.total = self.add_weight("total")
        if reduction != "sum":
            self.count = self.add_weight("count")

    def update_state(self, values, sample_weight=None):
        values = tf.cast(tf.convert_to_tensor(values), self._dtype)
        if sample_weight is not None:
            sample_weight = tf.cast(tf.convert_to_tensor(sample_weight), self._dtype)
            values, _, sample_weight = _squeeze_or_expand(values, None, sample_weight)
            sample_weight = sample_weight + tf.zeros_like(values)
            values = values * sample_weight
        self.total.assign_add(tf.reduce_sum(values))
        if self.reduction == "sum":
            return
        if sample_weight is not None:
            count = tf.reduce_sum(sample_weight)
        else:
            count = tf.cast(_num_elements(values), self._dtype)
        self.count.assign_add(count)

    def result(self):
        if self.reduction == "sum":
            return tf.identity(self.total)
        return _div_no_nan(tf.identity(self.total), tf.identity(self.count))


class Sum(Reduce):
    """The sum of the values seen."""

    def __init__(self, name="sum", dtype=None):
        super().__init__("sum", name=name, dtype=dtype)


class Mean(Reduce):
    """The (weighted) mean of the values seen."""

    def __init__(self, name="mean", dtype=None):
        super().__init__("weighted_mean", name=name, dtype=dtype)


class MeanMetricWrapper(Mean):
    """The mean of `fn(y_true, y_pred)` over everything seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.cast(tf.convert_to_tensor(y_true), self._dtype)
        y_pred = tf.cast(tf.convert_to_tensor(y_pred), self._dtype)
        y_pred, y_true, _ = _squeeze_or_expand(y_pred, y_true)
        matches = self._fn(y_true, y_pred, **self._fn_kwargs)
        return super().update_state(matches, sample_weight=sample_weight)


def accuracy(y_true, y_pred):
    """1.0 where y_true == y_pred, else 0.0."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    if y_true.dtype != y_pred.dtype:
        y_pred = tf.cast(y_pred, y_true.dtype)
    return tf.cast(tf.equal(y_true, y_pred), tf.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """How often predictions above `threshold` match 0/1 labels, per example."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.cast(tf.convert_to_tensor(y_true), y_pred.dtype)
    y_pred = tf.cast(y_pred > tf.cast(threshold, y_pred.dtype), y_pred.dtype)
    return tf.reduce_mean(tf.cast(tf.equal(y_true, y_pred), tf.float32), axis=-1)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label is the arg max of the prediction."""
    y_pred = tf.convert_to_tensor(y_pred)
    y_true = tf.convert_to_tensor(y_true)
    original_shape = y_true.shape
    reshape = False
    if _rank(y_true) == _rank(y_pred):
        y_true = tf.squeeze(y_true, [-1])
        reshape = True
    y_pred = tf.argmax(y_pred, axis=-1)
    if y_pred.dtype != y_true.dtype:
        y_pred = tf.cast(y_pred, y_true.dtype)
    matches = tf.cast(tf.equal(y_true, y_pred), tf.float32)
    if reshape and None not in original_shape.as_list():
        matches = tf.reshape(matches, original_shape.as_list())
    elif reshape:
        matches = tf.expand_dims(matches, -1)
    return matches


def categorical_accuracy(y_true, y_pred):
    """1.0 where the arg max of the one-hot label is the arg max of the prediction."""
    return sparse_categorical_accuracy(tf.argmax(y_true, axis=-1), y_pred)


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels."""

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name, dtype=dtype)


class BinaryAccuracy(MeanMetricWrapper):
    """How often predictions (thresholded) match binary labels."""

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name, dtype=dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class matches the one-hot label."""

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name, dtype=dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class matches the integer label."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name, dtype=dtype)


class MeanSquaredErrorMetric(MeanMetricWrapper):
    """The mean of the mean squared errors seen."""

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name, dtype=dtype)


class MeanAbsoluteErrorMetric(MeanMetricWrapper):
    """The mean of the mean absolute errors seen."""

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name, dtype=dtype)


_METRIC_FUNCTIONS = {
    "accuracy": accuracy, "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "mse": mean_squared_error, "mean_squared_error": mean_squared_error,
    "mae": mean_absolute_error, "mean_absolute_error": mean_absolute_error,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}


def get_metric(identifier):
    """A metric function or object from a name, a Metric or a function."""
    if isinstance(identifier, str):
        if identifier in _METRIC_FUNCTIONS:
            return _METRIC_FUNCTIONS[identifier]
        raise _unknown_object("metric function", identifier)
    if callable(identifier):
        return identifier
    raise ValueError("Could not interpret metric identifier: %s" % (identifier,))


# ---- progress bar and callbacks ----------------------------------------------------------------


def _print_msg(message, line_break=True):
    sys.stdout.write(message + "\n" if line_break else message)
    sys.stdout.flush()


class Progbar:
    """Keras's progress bar (keras/utils/generic_utils.py): with verbose=1 a bar redrawn in
    place, with verbose=2 one line per epoch."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        # Keras redraws in place whenever the `posix` module is loaded, so on every POSIX host.
        self._dynamic_display = (getattr(sys.stdout, "isatty", lambda: False)()
                                 or "ipykernel" in sys.modules or "posix" in sys.modules)
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0
        self._time_at_epoch_start = self._start
        self._time_at_epoch_end = None
        self._time_after_first_step = None

    def update(self, current, values=None, finalize=None):
        if finalize is None:
            finalize = False if self.target is None else current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics:
                base = max(current - self._seen_so_far, 1)
                if k not in self._values:
                    self._values[k] = [v * base, base]
                else:
                    self._values[k][0] += v * base
                    self._values[k][1] += base
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current
        message = ""
        now = time.time()
        info = " - %.0fs" % (now - self._start)
        if current == self.target:
            self._time_at_epoch_end = now
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            previous_width = self._total_width
            if self._dynamic_display:
                message += "\b" * previous_width + "\r"
            else:
                message += "\n"
            if self.target is not None:
                digits = int(np.log10(self.target)) + 1
                bar = ("%" + str(digits) + "d/%d [") % (current, self.target)
                progress = float(current) / self.target
                progress_width = int(self.width * progress)
                if progress_width > 0:
                    bar += "=" * (progress_width - 1)
                    bar += ">" if current < self.target else "="
                bar += "." * (self.width - progress_width) + "]"
            else:
                bar = "%7d/Unknown" % current
            self._total_width = len(bar)
            message += bar
            per_unit = self._estimate_step_duration(current, now)
            if self.target is None or finalize:
                info += self._format_time(per_unit, self.unit_name)
            else:
                eta = per_unit * (self.target - current)
                if eta > 3600:
                    eta_text = "%d:%02d:%02d" % (eta // 3600, (eta % 3600) // 60, eta % 60)
                elif eta > 60:
                    eta_text = "%d:%02d" % (eta // 60, eta % 60)
                else:
                    eta_text = "%ds" % eta
                info = " - ETA: %s" % eta_text
            for k in self._values_order:
                info += " - %s:" % k
                avg = np.mean(self._values[k][0] / max(1, self._values[k][1]))
                info += " %.4f" % avg if abs(avg) > 1e-3 else " %.4e" % avg
            self._total_width += len(info)
            if previous_width > self._total_width:
                info += " " * (previous_width - self._total_width)
            if finalize:
                info += "\n"
            _print_msg(message + info, line_break=False)
        elif self.verbose == 2 and finalize:
            digits = int(np.log10(self.target)) + 1
            info = ("%" + str(digits) + "d/%d") % (current, self.target) + info
            for k in self._values_order:
                info += " - %s:" % k
                avg = np.mean(self._values[k][0] / max(1, self._values[k][1]))
                info += " %.4f" % avg if avg > 1e-3 else " %.4e" % avg
            if self._time_at_epoch_end:
                per_epoch = self._time_at_epoch_end - self._time_at_epoch_start
                per_step = per_epoch / self.target
                self._time_at_epoch_start = now
                self._time_at_epoch_end = None
                info += " -" + self._format_time(per_epoch, "epoch")
                info += " -" + self._format_time(per_step, self.unit_name)
                info += "\n"
            _print_msg(info, line_break=False)
        self._last_update = now

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)

    @staticmethod
    def _format_time(per_unit, unit_name):
        if per_unit >= 1 or per_unit == 0:
            return " %.0fs/%s" % (per_unit, unit_name)
        if per_unit >= 1e-3:
            return " %.0fms/%s" % (per_unit * 1000.0, unit_name)
        return " %.0fus/%s" % (per_unit * 1000000.0, unit_name)

    def _estimate_step_duration(self, current, now):
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            per_unit = (now - self._time_after_first_step) / (current - 1)
        else:
            per_unit = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per_unit


class Callback:
    """Base class of callbacks: hooks fit, evaluate and predict call at the start and end of
    training, epochs and batches. `self.model` is the model being trained."""

    def __init__(self):
        self.validation_data = None
        self.model = None
        self.params = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_batch_begin(self, batch, logs=None):
        pass

    def on_batch_end(self, batch, logs=None):
        pass

    def on_epoch_begin(self, epoch, logs=None):
        pass

    def on_epoch_end(self, epoch, logs=None):
        pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        pass

    def on_test_batch_end(self, batch, logs=None):
        pass

    def on_predict_batch_begin(self, batch, logs=None):
        pass

    def on_predict_batch_end(self, batch, logs=None):
        pass

    def on_train_begin(self, logs=None):
        pass

    def on_train_end(self, logs=None):
        pass

    def on_test_begin(self, logs=None):
        pass

    def on_test_end(self, logs=None):
        pass

    def on_predict_begin(self, logs=None):
        pass

    def on_predict_end(self, logs=None):
        pass


class History(Callback):
    """Records each epoch's logs: `history.history['loss']` lists the epochs' losses. fit
    returns it."""

    def __init__(self):
        super().__init__()
        self.history = {}

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)
        self.model.history = self


class ProgbarLogger(Callback):
    """Prints the progress bar (verbose=1) or a line per epoch (verbose=2)."""

    def __init__(self, count_mode="samples", stateful_metrics=None):
        super().__init__()
        if count_mode not in ("samples", "steps"):
            raise ValueError('Unknown `count_mode`: %s. Expected values are ["samples", "steps"]'
                             % (count_mode,))
        self.use_steps = count_mode == "steps"
        self.stateful_metrics = set(stateful_metrics or ())
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        super().set_params(params)
        self.verbose = params["verbose"]
        self.epochs = params["epochs"]
        self.target = params.get("steps")

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset()

    def on_predict_begin(self, logs=None):
        self._reset()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset()
        if self.verbose and self.epochs > 1:
            _print_msg("Epoch %d/%d" % (epoch + 1, self.epochs))

    def on_train_batch_end(self, batch, logs=None):
        self._batch_update(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._batch_update(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._batch_update(batch, None)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize(logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize(logs)

    def on_predict_end(self, logs=None):
        self._finalize(logs)

    def _reset(self):
        self.seen = 0
        self.progbar = None

    def _init_progbar(self):
        if self.model is not None:
            self.stateful_metrics |= {m.name for m in self.model.metrics}
        if self.progbar is None:
            self.progbar = Progbar(target=self.target, verbose=self.verbose,
                                   stateful_metrics=self.stateful_metrics, unit_name="step")
        self.progbar.stateful_metrics |= self.stateful_metrics

    def _batch_update(self, batch, logs):
        self._init_progbar()
        self.seen = batch + 1
        if self.verbose == 1:
            self.progbar.update(self.seen, list((logs or {}).items()), finalize=False)

    def _finalize(self, logs):
        self._init_progbar()
        if self.target is None:
            self.target = self.seen
            self.progbar.target = self.target
        self.progbar.update(self.target, list((logs or {}).items()), finalize=True)


class EarlyStopping(Callback):
    """Stops training when `monitor` has stopped improving for `patience` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch
        if mode not in ("auto", "min", "max"):
            _warn("EarlyStopping mode %s is unknown, fallback to auto mode." % (mode,))
            mode = "auto"
        if mode == "min":
            self._greater = False
        elif mode == "max":
            self._greater = True
        else:
            self._greater = monitor.endswith(("acc", "accuracy", "auc"))
        self.min_delta *= 1 if self._greater else -1

    def monitor_op(self, a, b):
        return np.greater(a, b) if self._greater else np.less(a, b)

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = -np.inf if self._greater else np.inf
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    _print_msg("Restoring model weights from the end of the best epoch: %d."
                               % (self.best_epoch + 1))
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            _print_msg("Epoch %d: early stopping" % (self.stopped_epoch + 1))

    def get_monitor_value(self, logs):
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            _warn("Early stopping conditioned on metric `%s` which is not available. Available "
                  "metrics are: %s" % (self.monitor, ",".join(list(logs.keys()))))
        return value

    def _is_improvement(self, value, reference):
        return self.monitor_op(value - self.min_delta, reference)


class LambdaCallback(Callback):
    """A callback from plain functions: on_epoch_end=lambda epoch, logs: ..."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                             on_batch_begin=on_batch_begin, on_batch_end=on_batch_end,
                             on_train_begin=on_train_begin, on_train_end=on_train_end,
                             **kwargs).items():
            if fn is not None:
                setattr(self, name, fn)


class CallbackList:
    """The callbacks of one fit/evaluate/predict, with the History and ProgbarLogger Keras
    adds (the progress bar first, the history last)."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        self.callbacks = list(callbacks or [])
        self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
        progbar = next((c for c in self.callbacks if isinstance(c, ProgbarLogger)), None)
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if progbar is None and add_progbar:
            self.callbacks.insert(0, ProgbarLogger(count_mode="steps"))
        for c in self.callbacks:
            if model is not None:
                c.set_model(model)
            if params:
                c.set_params(dict(params))

    def __getattr__(self, hook):
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        def call(*args, **kwargs):
            for c in self.callbacks:
                getattr(c, hook)(*args, **kwargs)
        return call


# ---- models ------------------------------------------------------------------------------------


def _to_python(value):
    """Logs as Keras gives them to callbacks: tensors to Python numbers (or arrays)."""
    if isinstance(value, dict):
        return {k: _to_python(v) for k, v in value.items()}
    if isinstance(value, (tf.Tensor, tf.Variable)):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0:
        return value.item()
    return value


def _to_tensor_data(value):
    if value is None:
        return None
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (np.ndarray,
                                                                            tf.Tensor)):
        return [_to_tensor_data(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_tensor_data(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return tf.constant(value.astype(np.float32))
    if isinstance(value, (tf.Tensor, tf.Variable)):
        return value
    return tf.convert_to_tensor(value)


def _num_samples(structure):
    return int(_flatten(structure)[0].shape[0])


def _slice(structure, indices):
    return _map_structure(lambda t: None if t is None else tf.gather(t, indices), structure)


def _is_dataset(value):
    return type(value).__name__.endswith("Dataset") or hasattr(value, "element_spec")


def _pack(x, y=None, sample_weight=None):
    """A batch as Keras gives it to train_step: (x,), (x, y) or (x, y, sample_weight)."""
    if y is None and sample_weight is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _unpack(data):
    if isinstance(data, (list, tuple)) and not hasattr(data, "_fields"):
        if len(data) == 1:
            return data[0], None, None
        if len(data) == 2:
            return data[0], data[1], None
        if len(data) == 3:
            return data[0], data[1], data[2]
        raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                         "`(x, y, sample_weight)`, found: %s" % (data,))
    return data, None, None


class _DataHandler:
    """Batches of (x, y, sample_weight) per epoch: from tensors and arrays (shuffled each
    epoch unless shuffle=False) or from a tf.data.Dataset (taken as batched)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=None, steps=None,
                 shuffle=False):
        self._dataset = None
        self._steps = steps
        if _is_dataset(x):
            if y is not None:
                raise ValueError("`y` argument is not supported when using dataset as input.")
            self._dataset = x
            try:
                cardinality = int(x.cardinality())
                self.steps = cardinality if cardinality >= 0 else None
            except Exception:
                self.steps = None
            if steps is not None:
                self.steps = steps
            return
        self.x = _to_tensor_data(x)
        self.y = _to_tensor_data(y)
        self.sample_weight = _to_tensor_data(sample_weight)
        self.size = _num_samples(self.x)
        self.batch_size = batch_size or 32
        self.shuffle = shuffle
        self.steps = int(math.ceil(self.size / self.batch_size))
        if steps is not None:
            self.steps = min(self.steps, steps)

    def batches(self):
        if self._dataset is not None:
            for step, data in enumerate(self._dataset):
                if self._steps is not None and step >= self._steps:
                    return
                yield step, _unpack(data)
            return
        order = list(range(self.size))
        if self.shuffle:
            random.shuffle(order)
        for step in range(self.steps):
            chunk = order[step * self.batch_size:(step + 1) * self.batch_size]
            if not self.shuffle and len(chunk) == self.size:
                yield step, (self.x, self.y, self.sample_weight)
                continue
            indices = tf.constant(chunk, dtype=tf.int32)
            yield step, (_slice(self.x, indices), _slice(self.y, indices),
                         _slice(self.sample_weight, indices))


def _validation_split(x, y, sample_weight, split):
    x, y, sample_weight = _to_tensor_data(x), _to_tensor_data(y), _to_tensor_data(sample_weight)
    n = _num_samples(x)
    at = int(math.floor(n * (1.0 - split)))
    first = tf.range(0, at)
    second = tf.range(at, n)
    return ((_slice(x, first), _slice(y, first), _slice(sample_weight, first)),
            (_slice(x, second), _slice(y, second), _slice(sample_weight, second)))


class _CompiledLoss:
    """The loss given to compile, and the `loss` metric: the batch-size-weighted mean of each
    batch's total loss."""

    def __init__(self, loss):
        self.loss = loss
        fn = get_loss(loss)
        if fn is None:
            self.loss_obj = None
        elif isinstance(fn, Loss):
            self.loss_obj = fn
        else:
            self.loss_obj = LossFunctionWrapper(fn, name=getattr(fn, "__name__", None))
        self.metric = Mean(name="loss")

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        values = []
        y_t = y_true
        if self.loss_obj is not None and y_true is not None:
            y_t = tf.convert_to_tensor(y_true)
            if _rank(y_t) == 1 and _rank(y_pred) == 2:
                y_t = tf.expand_dims(y_t, -1)
            if sample_weight is not None and _rank(sample_weight) == 1 and _rank(y_pred) == 2:
                sample_weight = tf.expand_dims(sample_weight, -1)
            if ((y_t.dtype.is_floating and y_pred.dtype.is_floating)
                    or (y_t.dtype.is_integer and y_pred.dtype.is_integer)):
                y_t = tf.cast(y_t, y_pred.dtype)
            values.append(self.loss_obj(y_t, y_pred, sample_weight=sample_weight))
        if regularization_losses:
            reg = regularization_losses[0]
            for r in regularization_losses[1:]:
                reg = reg + r
            values.append(reg)
        if not values:
            return tf.zeros(())
        total = values[0]
        for v in values[1:]:
            total = total + v
        self.metric.update_state(total, sample_weight=_batch_size(y_pred))
        return total


class _CompiledMetrics:
    """The metrics given to compile; "accuracy" becomes binary, sparse categorical or
    categorical accuracy by the shapes of the first batch and the loss, as in Keras."""

    def __init__(self, metrics, loss):
        self.loss = loss
        self._metrics = []
        for m in _flatten(metrics or []):
            if isinstance(m, Metric):
                self._metrics.append(m)
            elif isinstance(m, str):
                self._metrics.append(MeanMetricWrapper(None, name=m))
            else:
                fn = get_metric(m)
                self._metrics.append(MeanMetricWrapper(fn, name=getattr(fn, "__name__", None)))

    @property
    def metrics(self):
        return list(self._metrics)

    def _resolve(self, metric, y_true, y_pred):
        name = metric.name
        if name not in ("accuracy", "acc", "crossentropy", "ce"):
            return get_metric(name)
        loss = get_loss(self.loss)
        is_binary = isinstance(loss, BinaryCrossentropy) or loss is binary_crossentropy
        is_sparse = (isinstance(loss, SparseCategoricalCrossentropy)
                     or loss is sparse_categorical_crossentropy)
        y_t_rank, y_p_rank = _rank(y_true), _rank(y_pred)
        y_t_last = y_true.shape[-1] if y_t_rank else None
        y_p_last = y_pred.shape[-1] if y_p_rank else None
        binary = y_p_last == 1 or is_binary
        sparse = (y_t_rank < y_p_rank or (y_t_last == 1 and y_p_last not in (1, None))
                  or is_sparse)
        if name in ("accuracy", "acc"):
            if binary:
                return binary_accuracy
            if sparse:
                return sparse_categorical_accuracy
            return categorical_accuracy
        if binary:
            return binary_crossentropy
        if sparse:
            return sparse_categorical_crossentropy
        return categorical_crossentropy

    def update_state(self, y_true, y_pred, sample_weight=None):
        if y_true is None:
            return
        y_true = tf.convert_to_tensor(y_true)
        for m in self._metrics:
            if isinstance(m, MeanMetricWrapper) and m._fn is None:
                m._fn = self._resolve(m, y_true, y_pred)
            m.update_state(y_true, y_pred, sample_weight=sample_weight)


class Model(Layer):
    """A layer with training and inference: subclass it (layers as attributes, the forward
    pass in `call`), or make one from Input and layers: `Model(inputs, outputs)`."""

    def __new__(cls, *args, **kwargs):
        if cls is Model and (len(args) >= 2 or "inputs" in kwargs or "outputs" in kwargs):
            return super().__new__(Functional)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        functional = len(args) >= 2 or ("inputs" in kwargs and "outputs" in kwargs)
        if functional and not isinstance(self, Functional):
            # A subclass calling super().__init__(inputs=..., outputs=...).
            Functional.__init__(self, *args, **kwargs)
            return
        for key in kwargs:
            if key not in ("name", "trainable", "dtype", "dynamic", "autocast", "inputs",
                           "outputs"):
                raise TypeError("Keyword argument not understood:", key)
        super().__init__(name=kwargs.get("name"), trainable=kwargs.get("trainable", True),
                         dtype=kwargs.get("dtype"))
        self._is_graph_network = False
        self._is_compiled = False
        self.optimizer = None
        self.compiled_loss = None
        self.compiled_metrics = None
        self.stop_training = False
        self.history = None
        self._run_eagerly = False
        self.train_function = None
        self.test_function = None
        self.predict_function = None

    # ---- structure

    @property
    def layers(self):
        return self._flatten_layers(include_self=False, recursive=False)

    def get_layer(self, name=None, index=None):
        """A layer of the model, by name or by index."""
        if index is not None and name is not None:
            raise ValueError("Provide only a layer name or a layer index. Received: index=%s, "
                             "name=%s." % (index, name))
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError("Was asked to retrieve layer at index %s but model only has %d "
                                 "layers." % (index, len(self.layers)))
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError("No such layer: %s. Existing layers are: %s."
                             % (name, [layer.name for layer in self.layers]))
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    def _maybe_build(self, inputs):
        # A subclassed model builds its layers as its call reaches them (Keras skips the
        # default Model.build here).
        if type(self).build is Model.build:
            self.built = True
            return
        super()._maybe_build(inputs)

    def build(self, input_shape):
        """Builds the model's layers by tracing `call` on inputs of `input_shape`."""
        if self._is_graph_network:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling `build()` on a `Model` "
                             "subclass.")
        specs = _map_structure(lambda s: tf.TensorSpec(s, self._dtype),
                               _shape_structure(input_shape))

        def trace(x):
            return self.call(x)

        with tf.init_scope():
            tf.function(trace).get_concrete_function(specs)
        self.built = True

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Prints the model's layers, output shapes and parameter counts (Keras 2.15's
        format)."""
        if not self.built:
            raise ValueError("This model has not yet been built. Build the model first by "
                             "calling `build()` or by calling the model on a batch of data.")
        _print_summary(self, line_length, positions, print_fn or _print_msg, show_trainable)

    @property
    def metrics(self):
        """The loss tracker and compiled metrics (once trained or evaluated), then the Metric
        objects the model's layers hold."""
        out = []
        if self._is_compiled and getattr(self, "_metrics_built", False):
            out.append(self.compiled_loss.metric)
            out += self.compiled_metrics.metrics
        for layer in self._flatten_layers():
            for value in layer._tracked_values():
                if isinstance(value, Metric) and not any(value is m for m in out):
                    out.append(value)
        return out

    @property
    def metrics_names(self):
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        for m in self.metrics:
            m.reset_state()

    # ---- training

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=None, steps_per_execution=None,
                jit_compile=None, **kwargs):
        """Configures training: the optimizer, the loss and the metrics."""
        for key in kwargs:
            if key not in ("pss_evaluation_shards",):
                raise TypeError("Invalid keyword argument(s) in `compile()`: %s. Valid keyword "
                                "arguments include \"cloning\", \"experimental_run_tf_function\", "
                                "\"distribute\", \"target_tensors\", or \"sample_weight_mode\"."
                                % ((key,),))
        self.optimizer = get_optimizer(optimizer)
        self.loss = loss
        self.compiled_loss = _CompiledLoss(loss)
        self.compiled_metrics = _CompiledMetrics(metrics, loss)
        self._run_eagerly = bool(run_eagerly)
        self._is_compiled = True
        self._metrics_built = False
        self.train_function = None
        self.test_function = None
        self.predict_function = None

    @property
    def run_eagerly(self):
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value):
        self._run_eagerly = bool(value)

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None):
        """The compiled loss plus the layers' add_loss losses."""
        return self.compiled_loss(y, y_pred, sample_weight, regularization_losses=self.losses)

    def compute_metrics(self, x, y, y_pred, sample_weight):
        """Updates the compiled metrics; returns every metric's result by name."""
        self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        results = {}
        for m in self.metrics:
            value = m.result()
            if isinstance(value, dict):
                results.update(value)
            else:
                results[m.name] = value
        return results

    def train_step(self, data):
        """One step of training on a batch: forward pass, loss, gradients, optimizer update,
        metrics. Returns the metrics' results by name."""
        x, y, sample_weight = _unpack(data)
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        if y is not None and self.compiled_loss.loss_obj is None and not self.losses:
            raise ValueError("No loss found. You may have forgotten to provide a `loss` "
                             "argument in the `compile()` method.")
        self.optimizer.minimize(loss, self.trainable_variables, tape=tape)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        """Evaluation on a batch: forward pass, loss and metrics."""
        x, y, sample_weight = _unpack(data)
        y_pred = self(x, training=False)
        self.compute_loss(x, y, y_pred, sample_weight)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        """The model's output on a batch."""
        x, _, _ = _unpack(data)
        return self(x, training=False)

    def _step_function(self, step):
        if self._run_eagerly:
            return lambda x, y, sample_weight: step(_pack(x, y, sample_weight))

        def run(x, y, sample_weight):
            _keras_step.append(True)
            try:
                return step(_pack(x, y, sample_weight))
            finally:
                _keras_step.pop()
        return tf.function(run, reduce_retracing=True)

    def make_train_function(self, force=False):
        if self.train_function is None or force:
            self.train_function = self._step_function(self.train_step)
        return self.train_function

    def make_test_function(self, force=False):
        if self.test_function is None or force:
            self.test_function = self._step_function(self.test_step)
        return self.test_function

    def make_predict_function(self, force=False):
        if self.predict_function is None or force:
            self.predict_function = self._step_function(self.predict_step)
        return self.predict_function

    def _assert_compile_was_called(self):
        if not self._is_compiled:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1, **kwargs):
        """Trains the model for `epochs` epochs; returns the History of the epochs' logs."""
        self._assert_compile_was_called()
        if class_weight is not None:
            raise ValueError("Trellis's Keras has no class_weight.")
        verbose = 1 if verbose == "auto" else verbose
        if validation_split and validation_data is None:
            if _is_dataset(x):
                raise ValueError("`validation_split` is only supported for Tensors or NumPy "
                                 "arrays, found following types in the input: %s" % (type(x),))
            (x, y, sample_weight), validation_data = _validation_split(x, y, sample_weight,
                                                                       validation_split)
        data = _DataHandler(x, y, sample_weight, batch_size, steps_per_epoch, shuffle)
        callbacks = CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                                 model=self, verbose=verbose, epochs=epochs, steps=data.steps)
        self.stop_training = False
        self._metrics_built = True
        train_function = self.make_train_function()
        callbacks.on_train_begin()
        training_logs = None
        logs = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            for step, (bx, by, bsw) in data.batches():
                callbacks.on_train_batch_begin(step)
                logs = _to_python(train_function(bx, by, bsw))
                callbacks.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            if logs is None:
                raise ValueError("Unexpected result of `train_function` (Empty logs). This "
                                 "could be due to issues in input pipeline that resulted in an "
                                 "empty dataset. Otherwise, please use `Model.compile(..., "
                                 "run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)`"
                                 " for more information of where went wrong, or file a issue/bug "
                                 "to `tf.keras`.")
            epoch_logs = dict(logs)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                vx, vy, vsw = _unpack(validation_data)
                val_logs = self.evaluate(vx, vy, sample_weight=vsw,
                                         batch_size=validation_batch_size or batch_size,
                                         steps=validation_steps, verbose=0, return_dict=True,
                                         _in_fit=True)
                epoch_logs.update({"val_" + k: v for k, v in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        callbacks.on_train_end(logs=training_logs)
        return self.history

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, **kwargs):
        """The loss (and metrics) on the data: a scalar, a list, or a dict with
        return_dict=True."""
        in_fit = kwargs.pop("_in_fit", False)
        self._assert_compile_was_called()
        verbose = 1 if verbose == "auto" else verbose
        data = _DataHandler(x, y, sample_weight, batch_size, steps, shuffle=False)
        if not in_fit:
            callbacks = CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                     verbose=verbose, epochs=1, steps=data.steps)
        else:
            callbacks = CallbackList(callbacks, model=self)
        self._metrics_built = True
        test_function = self.make_test_function()
        callbacks.on_test_begin()
        self.reset_metrics()
        logs = {}
        for step, (bx, by, bsw) in data.batches():
            callbacks.on_test_batch_begin(step)
            logs = _to_python(test_function(bx, by, bsw))
            callbacks.on_test_batch_end(step, logs)
        callbacks.on_test_end(logs=logs)
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names if name in logs]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None, **kwargs):
        """The model's outputs for `x`, batch by batch, as NumPy arrays."""
        verbose = 1 if verbose == "auto" else verbose
        data = _DataHandler(x, None, None, batch_size, steps, shuffle=False)
        callbacks = CallbackList(callbacks, add_progbar=verbose != 0, model=self,
                                 verbose=verbose, epochs=1, steps=data.steps)
        predict_function = self.make_predict_function()
        callbacks.on_predict_begin()
        batches = []
        for step, (bx, _, _) in data.batches():
            callbacks.on_predict_batch_begin(step)
            batch = predict_function(bx, None, None)
            batch = _map_structure(lambda t: t.numpy(), batch)
            batches.append(batch)
            callbacks.on_predict_batch_end(step, {"outputs": batch})
        if not batches:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). "
                             "Please use `Model.compile(..., run_eagerly=True)`, or "
                             "`tf.config.run_functions_eagerly(True)` for more information of "
                             "where went wrong, or file a issue/bug to `tf.keras`.")
        callbacks.on_predict_end()
        # Each output concatenated over the batches, in the structure of one batch's outputs.
        columns = zip(*[_flatten(b) for b in batches])
        joined = iter([np.concatenate(parts, axis=0) for parts in columns])
        return _map_structure(lambda _: next(joined), batches[0])

    def train_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True,
                       return_dict=False):
        """One train_step on one batch; returns the loss (and metrics)."""
        self._assert_compile_was_called()
        self._metrics_built = True
        if reset_metrics:
            self.reset_metrics()
        logs = _to_python(self.make_train_function()(_to_tensor_data(x), _to_tensor_data(y),
                                                     _to_tensor_data(sample_weight)))
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names if name in logs]
        return values[0] if len(values) == 1 else values

    def predict_on_batch(self, x):
        """The model's output for one batch, as NumPy arrays."""
        out = self.make_predict_function()(_to_tensor_data(x), None, None)
        return _map_structure(lambda t: t.numpy(), out)


# Non-empty while fit, evaluate or predict traces a step: their batches come with the batch size
# unknown, as Keras's (tf.data) batches do.
_keras_step = []


def _shape_structure(shape):
    if isinstance(shape, tf.TensorShape):
        return shape
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple,
                                                                            tf.TensorShape)):
        return [_shape_structure(s) for s in shape]
    return tf.TensorShape(shape)


class Functional(Model):
    """A Model made from Input tensors and the layer calls leading to its outputs."""

    def __init__(self, inputs=None, outputs=None, name=None, trainable=True, **kwargs):
        if name is None:
            name = _unique_name("model")
        Model.__init__(self, name=name, trainable=trainable)
        self._init_graph_network(inputs, outputs)

    def _init_graph_network(self, inputs, outputs):
        if isinstance(inputs, dict):
            self._nested_inputs = inputs
            flat_inputs = [inputs[k] for k in inputs]
        else:
            self._nested_inputs = inputs
            flat_inputs = _flatten(inputs)
        for t in flat_inputs:
            if not _is_keras_tensor(t) or not isinstance(t._keras_history.layer, InputLayer):
                raise ValueError("Input tensors to a Functional must come from `tf.keras.Input`."
                                 " Received: %s (missing previous layer metadata)." % (t,))
        self._nested_outputs = outputs
        self.inputs = list(flat_inputs)
        self.outputs = _flatten(outputs)
        self._nodes_by_depth, self._graph_layers = _build_graph(self.inputs, outputs)
        self._is_graph_network = True
        self.built = True

    @property
    def layers(self):
        return list(self._graph_layers)

    @property
    def input(self):
        return self._nested_inputs

    @property
    def output(self):
        return self._nested_outputs

    @property
    def input_shape(self):
        shapes = [tuple(t.shape.as_list()) for t in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        shapes = [tuple(t.shape.as_list()) for t in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    def _direct_sublayers(self):
        return [l for l in self._graph_layers if l is not self]

    def call(self, inputs, training=None, mask=None):
        if isinstance(self._nested_inputs, dict) and isinstance(inputs, dict):
            flat = [inputs[k] for k in self._nested_inputs]
        else:
            flat = _flatten(inputs)
        if len(flat) != len(self.inputs):
            raise ValueError("Layer \"%s\" expects %d input(s), but it received %d input "
                             "tensors. Inputs received: %s" % (self.name, len(self.inputs),
                                                                len(flat), flat))
        values = {}
        for kt, value in zip(self.inputs, flat):
            value = self._prepare_input(value)
            if value.dtype != kt.dtype and not value.dtype.is_floating:
                value = tf.cast(value, kt.dtype)
            values[id(kt)] = value
        for depth in sorted(self._nodes_by_depth, reverse=True):
            for node in self._nodes_by_depth[depth]:
                if node.is_input:
                    continue
                args = _map_structure(lambda t: values[id(t)] if _is_keras_tensor(t) else t,
                                      node.input_tensors)
                kwargs = dict(node.call_kwargs)
                if training is not None and node.layer._call_accepts("training"):
                    kwargs.setdefault("training", training)
                out = node.layer(args, *node.call_args, **kwargs)
                for kt, value in zip(_flatten(node.output_tensors), _flatten(out)):
                    values[id(kt)] = value
        return _map_structure(lambda t: values[id(t)], self._nested_outputs)


class Sequential(Functional):
    """A stack of layers, each called on the previous one's output. Given its input shape (an
    Input, or input_shape= on the first layer) it is built at once; otherwise on its first
    call."""

    def __init__(self, layers=None, name=None):
        Model.__init__(self, name=name)
        self._seq_layers = []
        self._seq_input = None
        self._seq_output = None
        self._created_nodes = []
        self._inferred_shape = None
        self._is_graph_network = False
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return list(self._seq_layers)

    def _direct_sublayers(self):
        return list(self._seq_layers)

    def add(self, layer):
        """Appends `layer` to the stack."""
        if _is_keras_tensor(layer) and isinstance(layer._keras_history.layer, InputLayer):
            layer = layer._keras_history.layer
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. Received: "
                            "layer=%s of type %s." % (layer, type(layer)))
        if isinstance(layer, InputLayer):
            if self._seq_layers or self._seq_input is not None:
                raise ValueError("Trellis's Sequential takes an Input only first.")
            self._seq_input = layer._input_tensor
            self._seq_output = self._seq_input
            self.built = True
            self._is_graph_network = True
            return
        for existing in self._seq_layers:
            if existing.name == layer.name:
                raise ValueError(
                    "All layers added to a Sequential model should have unique names. Name "
                    "\"%s\" is already the name of a layer in this model. Update the `name` "
                    "argument to pass a unique name." % (layer.name,))
        if self._seq_input is None and not self._seq_layers and layer._batch_input_shape:
            self._seq_input = Input(batch_shape=layer._batch_input_shape,
                                    name=layer.name + "_input")
            self._seq_output = self._seq_input
            self._is_graph_network = True
        self._seq_layers.append(layer)
        if self._seq_output is not None:
            out = layer(self._seq_output)
            if len(_flatten(out)) != 1:
                raise ValueError("All layers in a Sequential model should have a single output "
                                 "tensor. For multi-output layers, use the functional API.")
            self._seq_output = out
            self.built = True
        else:
            self.built = False
        self._refresh_graph()

    def pop(self):
        """Removes the last layer."""
        if not self._seq_layers:
            raise TypeError("There are no layers in the model.")
        self._seq_layers.pop()
        if self._seq_input is not None:
            self._seq_output = self._seq_input
            for layer in self._seq_layers:
                self._seq_output = layer(self._seq_output)
        self._refresh_graph()

    def _refresh_graph(self):
        if self._seq_input is not None and self._seq_layers:
            self.inputs = [self._seq_input]
            self.outputs = [self._seq_output]
            self._nested_inputs = self._seq_input
            self._nested_outputs = self._seq_output
            self._nodes_by_depth, self._graph_layers = _build_graph(self.inputs,
                                                                    self._seq_output)

    def _build_for_inferred_shape(self, inputs):
        # Keras builds the graph of a Sequential without a declared input shape from the shape
        # of the first input it is called on (relaxed to None where later inputs differ).
        if self._seq_input is not None and not self._created_nodes:
            return
        if not self._seq_layers or not isinstance(inputs, (tf.Tensor, tf.Variable)):
            return
        shape = tuple(inputs.shape.as_list())
        if _keras_step and shape:
            shape = (None,) + shape[1:]
        if self._inferred_shape is None:
            new_shape = shape
        elif len(shape) != len(self._inferred_shape):
            new_shape = None
        else:
            new_shape = tuple(a if a == b else None for a, b in zip(self._inferred_shape, shape))
        if new_shape is None or new_shape == self._inferred_shape:
            return
        for layer, node in self._created_nodes:
            if node in layer._inbound_nodes:
                layer._inbound_nodes.remove(node)
        self._created_nodes = []
        try:
            with tf.init_scope():
                x = Input(batch_shape=new_shape, dtype=inputs.dtype,
                          name=self._seq_layers[0].name + "_input")
                self._created_nodes.append((x._keras_history.layer, x.node))
                out = x
                for layer in self._seq_layers:
                    out = layer(out)
                    self._created_nodes.append((layer, out.node))
        except Exception:
            return
        self._inferred_shape = new_shape
        self._seq_input = x
        self._seq_output = out
        self._is_graph_network = True
        self._refresh_graph()

    def build(self, input_shape=None):
        """Builds the stack for inputs of `input_shape`."""
        if input_shape is None:
            if self._seq_input is None:
                raise ValueError("You must provide an `input_shape` argument.")
            self.built = True
            return
        shape = tuple(tf.TensorShape(input_shape).as_list())
        x = Input(batch_shape=shape, name=self._seq_layers[0].name + "_input")
        self._created_nodes.append((x._keras_history.layer, x.node))
        out = x
        for layer in self._seq_layers:
            out = layer(out)
            self._created_nodes.append((layer, out.node))
        self._inferred_shape = shape
        self._seq_input, self._seq_output = x, out
        self._is_graph_network = True
        self._refresh_graph()
        self.built = True

    def _maybe_build(self, inputs):
        self.built = True

    def call(self, inputs, training=None, mask=None):
        self._build_for_inferred_shape(inputs)
        if not self._seq_layers:
            return inputs
        outputs = inputs
        for layer in self._seq_layers:
            kwargs = {}
            if training is not None and layer._call_accepts("training"):
                kwargs["training"] = training
            outputs = layer(outputs, **kwargs)
        return outputs

    @property
    def input_shape(self):
        if self._seq_input is None:
            raise AttributeError("The layer \"%s\" has never been called and thus has no "
                                 "defined input shape." % self.name)
        return tuple(self._seq_input.shape.as_list())

    @property
    def output_shape(self):
        if self._seq_output is None:
            raise AttributeError("The layer \"%s\" has never been called and thus has no "
                                 "defined output shape." % self.name)
        return tuple(self._seq_output.shape.as_list())


# ---- summary -----------------------------------------------------------------------------------


def _readable_size(size):
    for unit in ("Byte", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return "%.2f %s" % (size, unit)
        size /= 1024
    return "%.2f %s" % (size, "PB")


def _count_and_size(weights):
    unique = {id(w): w for w in weights}.values()
    count = sum(math.prod(w.shape.as_list()) for w in unique)
    size = sum(math.prod(w.shape.as_list()) * w.dtype.size for w in unique)
    return int(count), size


def _print_summary(model, line_length, positions, print_fn, show_trainable):
    sequential_like = True
    relevant_nodes = []
    if getattr(model, "_is_graph_network", False) and not isinstance(model, Sequential):
        nodes = []
        for depth_nodes in model._nodes_by_depth.values():
            if len(depth_nodes) > 1 or (len(depth_nodes) == 1
                                        and len(depth_nodes[0].keras_inputs) > 1):
                sequential_like = False
                break
            nodes += depth_nodes
        if sequential_like:
            for layer in model.layers:
                if sum(1 for n in layer._inbound_nodes if any(n is m for m in nodes)) > 1:
                    sequential_like = False
                    break
        for depth_nodes in model._nodes_by_depth.values():
            relevant_nodes += depth_nodes
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.70, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    if show_trainable:
        line_length += 11
        positions.append(line_length)
        to_display.append("Trainable")

    def print_row(fields):
        left = [str(x) for x in fields]
        while any(left):
            line = ""
            for col in range(len(left)):
                start = positions[col - 1] if col > 0 else 0
                end = positions[col]
                space = 2 if col != len(positions) - 1 else 0
                cutoff = end - start - space
                if col != len(positions) - 1:
                    cutoff -= 1
                fit = left[col][:cutoff]
                breaks = [fit.find(x) + len(x) for x in ("),", "},", "],", "',") if fit.find(x)
                          >= 0]
                if breaks:
                    cutoff = min(breaks)
                    fit = fit[:cutoff]
                if col == 0:
                    line += " "
                line += fit
                line += " " * space if space else ""
                left[col] = left[col][cutoff:]
                line += " " * (positions[col] - len(line))
            print_fn(line)

    print_fn('Model: "%s"' % model.name)
    print_fn("_" * line_length)
    print_row(to_display)
    print_fn("=" * line_length)
    layers = model.layers
    for i, layer in enumerate(layers):
        try:
            output_shape = layer.output_shape
        except AttributeError:
            output_shape = "multiple"
        name = "%s (%s)" % (layer.name, type(layer).__name__)
        if sequential_like:
            params = layer.count_params() if layer.built or isinstance(layer, Functional) \
                else "0 (unused)"
            fields = [name, output_shape, params]
        else:
            connections = []
            for node in layer._inbound_nodes:
                if relevant_nodes and not any(node is n for n in relevant_nodes):
                    continue
                for inbound, node_index, tensor_index in node.iterate_inbound():
                    connections.append("%s[%d][%d]" % (inbound.name, node_index, tensor_index))
            fields = [name, output_shape, layer.count_params(), connections]
        if show_trainable:
            fields.append("Y" if layer.trainable else "N")
        print_row(fields)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    trainable, trainable_size = _count_and_size(model.trainable_weights)
    frozen, frozen_size = _count_and_size(model.non_trainable_weights)
    print_fn("Total params: %d (%s)" % (trainable + frozen,
                                        _readable_size(trainable_size + frozen_size)))
    print_fn("Trainable params: %d (%s)" % (trainable, _readable_size(trainable_size)))
    print_fn("Non-trainable params: %d (%s)" % (frozen, _readable_size(frozen_size)))
    print_fn("_" * line_length)


# ---- the submodules ----------------------------------------------------------------------------

_export(layers, {
    "Input": Input, "InputLayer": InputLayer, "Flatten": Flatten, "Activation": Activation,
    "Lambda": Lambda, "Dropout": Dropout, "Add": Add, "add": add, "Concatenate": Concatenate,
    "concatenate": concatenate, "Embedding": Embedding, "MaxPooling2D": MaxPooling2D,
    "MaxPool2D": MaxPooling2D, "AveragePooling2D": AveragePooling2D,
    "AvgPool2D": AveragePooling2D, "MaxPooling1D": MaxPooling1D, "MaxPool1D": MaxPooling1D,
    "AveragePooling1D": AveragePooling1D, "AvgPool1D": AveragePooling1D,
    "GlobalAveragePooling2D": GlobalAveragePooling2D,
    "GlobalAvgPool2D": GlobalAveragePooling2D, "GlobalMaxPooling2D": GlobalMaxPooling2D,
    "GlobalMaxPool2D": GlobalMaxPooling2D, "GlobalAveragePooling1D": GlobalAveragePooling1D,
    "GlobalAvgPool1D": GlobalAveragePooling1D, "GlobalMaxPooling1D": GlobalMaxPooling1D,
    "GlobalMaxPool1D": GlobalMaxPooling1D})
_export(losses, {
    "Loss": Loss, "Reduction": Reduction, "LossFunctionWrapper": LossFunctionWrapper,
    "MeanSquaredError": MeanSquaredError, "MeanAbsoluteError": MeanAbsoluteError,
    "BinaryCrossentropy": BinaryCrossentropy, "CategoricalCrossentropy": CategoricalCrossentropy,
    "SparseCategoricalCrossentropy": SparseCategoricalCrossentropy,
    "mean_squared_error": mean_squared_error, "mse": mse, "MSE": MSE,
    "mean_absolute_error": mean_absolute_error, "mae": mae, "MAE": MAE,
    "binary_crossentropy": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy, "get": get_loss})
_export(metrics, {
    "Metric": Metric, "Mean": Mean, "Sum": Sum, "MeanMetricWrapper": MeanMetricWrapper,
    "Accuracy": Accuracy, "BinaryAccuracy": BinaryAccuracy,
    "CategoricalAccuracy": CategoricalAccuracy,
    "SparseCategoricalAccuracy": SparseCategoricalAccuracy,
    "MeanSquaredError": MeanSquaredErrorMetric, "MeanAbsoluteError": MeanAbsoluteErrorMetric,
    "accuracy": accuracy, "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy, "get": get_metric})
MeanSquaredErrorMetric.__name__ = MeanSquaredErrorMetric.__qualname__ = "MeanSquaredError"
MeanAbsoluteErrorMetric.__name__ = MeanAbsoluteErrorMetric.__qualname__ = "MeanAbsoluteError"
_export(callbacks, {
    "Callback": Callback, "History": History, "EarlyStopping": EarlyStopping,
    "ProgbarLogger": ProgbarLogger, "LambdaCallback": LambdaCallback,
    "CallbackList": CallbackList})
_export(utils, {"Progbar": Progbar})
_export(models, {"Model": Model, "Sequential": Sequential})
vars(models)["Functional"] = Functional
Functional.__module__ = "tensorflow.keras.models"
