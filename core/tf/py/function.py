"""Support classes of tf.function written in Python: GraphDef and NodeDef (what
Graph.as_graph_def() returns) and tf.Module.

tf-function.c runs this file once, when the module is imported, in a namespace of its own
(TfState.py_support) where `Variable` is already bound to tf.Variable. Plain Python is the
natural form for these: they hold no tensors, and users subclass Module.
"""


class NodeDef:
    """One node of a GraphDef: its name, its op type and its inputs ("add", "x:1", "^dep")."""

    def __init__(self, name, op, input):
        self.name = name
        self.op = op
        self.input = input

    def __repr__(self):
        text = 'name: "%s"\nop: "%s"\n' % (self.name, self.op)
        for i in self.input:
            text += 'input: "%s"\n' % i
        return text


class GraphDef:
    """A graph as TensorFlow's protocol buffer shows it: `.node` lists every node."""

    def __init__(self, node):
        self.node = node

    def __repr__(self):
        text = ''
        for n in self.node:
            text += 'node {\n'
            for line in repr(n).splitlines():
                text += '  ' + line + '\n'
            text += '}\n'
        return text


def _snake_case(name):
    out = ''
    for i, c in enumerate(name):
        if c.isupper() and i > 0 and not name[i - 1].isupper():
            out += '_'
        out += c.lower()
    return out


def _collect_variables(value, trainable_only, seen, out):
    # Attributes are walked in sorted order, as TensorFlow's module tracking does.
    if isinstance(value, Variable):
        if id(value) not in seen and (value.trainable or not trainable_only):
            seen.add(id(value))
            out.append(value)
    elif isinstance(value, Module):
        if id(value) not in seen:
            seen.add(id(value))
            for key in sorted(vars(value)):
                _collect_variables(vars(value)[key], trainable_only, seen, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect_variables(item, trainable_only, seen, out)
    elif isinstance(value, dict):
        for key in sorted(value):
            _collect_variables(value[key], trainable_only, seen, out)


def _module_variables(module, trainable_only):
    out = []
    seen = {id(module)}
    for key in sorted(vars(module)):
        _collect_variables(vars(module)[key], trainable_only, seen, out)
    return tuple(out)


class Module:
    """Base class for neural network modules: names and tracks variables."""

    def __init__(self, name=None):
        self._name = name

    @property
    def name(self):
        # Subclasses often skip Module.__init__, so _name may be missing.
        name = vars(self).get('_name')
        return name if name is not None else _snake_case(type(self).__name__)

    @property
    def variables(self):
        return _module_variables(self, False)

    @property
    def trainable_variables(self):
        return _module_variables(self, True)

    @property
    def submodules(self):
        return tuple(v for k, v in sorted(vars(self).items()) if isinstance(v, Module))

