"""Support classes of tf.function written in Python (GraphDef, NodeDef, tf.Module)."""
