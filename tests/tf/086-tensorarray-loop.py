# A TensorArray as a loop variable of an AutoGraph `for` (the guide's "Accumulating values in a
# loop"): its element shape is learnt from the write in the loop body, so stack() after the loop
# knows it; the graph's While carries the tensor list.
import tensorflow as tf

def rnn_step(inp, state):
  return inp + state

@tf.function
def dynamic_rnn(rnn_step, input_data, initial_state):
  input_data = tf.transpose(input_data, [1, 0, 2])
  max_seq_len = input_data.shape[0]
  states = tf.TensorArray(tf.float32, size=max_seq_len)
  state = initial_state
  for i in tf.range(max_seq_len):
    state = rnn_step(input_data[i], state)
    states = states.write(i, state)
  return tf.transpose(states.stack(), [1, 0, 2])

data = tf.reshape(tf.range(12, dtype=tf.float32), [2, 3, 2])
print(dynamic_rnn(rnn_step, data, tf.zeros([2, 2])))
graph = dynamic_rnn.get_concrete_function(rnn_step, data, tf.zeros([2, 2])).graph
print(sorted({n.op for n in graph.as_graph_def().node if n.op.startswith("TensorList")}))

@tf.function
def squares(n):
  ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
  for i in tf.range(n):
    ta = ta.write(i, i * i)
  return ta.stack(), ta.size()

print(squares(tf.constant(5)))
print(squares(tf.constant(0)))

# expect-output:
# tf.Tensor(
# [[[ 0.  1.]
#   [ 2.  4.]
#   [ 6.  9.]]
#
#  [[ 6.  7.]
#   [14. 16.]
#   [24. 27.]]], shape=(2, 3, 2), dtype=float32)
# ['TensorListReserve', 'TensorListStack']
# (<tf.Tensor: shape=(5,), dtype=int32, numpy=array([ 0,  1,  4,  9, 16], dtype=int32)>, <tf.Tensor: shape=(), dtype=int32, numpy=5>)
# (<tf.Tensor: shape=(0,), dtype=int32, numpy=array([], dtype=int32)>, <tf.Tensor: shape=(), dtype=int32, numpy=0>)
