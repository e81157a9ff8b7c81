# https://www.tensorflow.org/api_docs/python/tf/einsum: bad equations and operands. The
# ValueErrors are the texts of special_math_ops._einsum_v2_parse_and_resolve_equation (TF's
# Python checks before the op: characters other than letters, commas and one "->"; the number
# of subscripts; output labels repeated or absent from the inputs); the InvalidArgumentErrors
# are EinsumOp's (einsum_op_impl.h ProcessDimensions / RecordLabelToDimension), ending with
# " [Op:Einsum]" as eager errors do.
import tensorflow as tf

a = tf.ones([2, 3])
b = tf.ones([3, 4])
for eq, args in [('ij,jk->ix', (a, b)),
                 ('ij,jk->ii', (a, b)),
                 ('i1,jk->ik', (a, b)),
                 ('ij;jk->ik', (a, b)),
                 ('ij,jk,kl->il', (a, b)),
                 ('ijk,jk->ik', (a, b)),
                 ('ij,jk->ik', (a, tf.ones([4, 4]))),
                 ('...ijk,jk->ik', (a, b))]:
  try:
    tf.einsum(eq, *args)
    print(eq, "ok")
  except (ValueError, tf.errors.InvalidArgumentError) as e:
    print(type(e).__name__ + ":", e)

print(tf.einsum('ij, jk -> ik', a, b).shape)  # spaces are ignored

# expect-output:
# ValueError: Output subscripts contain the label x not present in the input subscripts.
# ValueError: Output subscripts contain a label appearing more than once: ij,jk->ii
# ValueError: Subscripts have incorrect format: i1,jk->ik
# ValueError: Subscripts have incorrect format: ij;jk->ik
# ValueError: Got 2 inputs for equation "ij,jk,kl->il", expecting 3
# InvalidArgumentError: Expected input 0 to have rank 3 but got: 2 [Op:Einsum]
# InvalidArgumentError: Expected dimension 3 at axis 0 of the input shaped [4,4] but got dimension 4 [Op:Einsum]
# InvalidArgumentError: Expected input 0 to have rank at least 3 but got: 2 [Op:Einsum]
# (2, 4)
