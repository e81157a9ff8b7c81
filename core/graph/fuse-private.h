/* fuse-private.h — elementwise fusion (fuse.c), shared with the optimiser, the executor and
 * inlining; not included outside core/graph.
 *
 * A fused node (TR_GOP_FUSED, GraphDef type "_FusedElementwise") stands for a tree of
 * elementwise ops: its inputs are the tree's inputs from outside, its one output the tree's
 * root, and node->value holds the program that computes the tree per element (an int32 tensor
 * of instruction words, shared by graph copies like a Const's value). The executor decodes the
 * program once per plan into a TrFusedKernel and runs it over blocks of elements.
 */
#pragma once

#include "graph-private.h"

G_BEGIN_DECLS

/* The fusion pass: every maximal tree of fusable elementwise nodes (same dtype and static shape,
 * intermediate results used only inside the tree) of two or more nodes becomes one fused node,
 * made in place of the tree's root (same name and id); the other nodes of the tree are left
 * without consumers for the dead-node pass. Returns how many nodes were fused into another. */
int tr_graph_fuse_elementwise(TrGraph *g);

/* A fused node computing what `like` (a fused node, of any graph) computes, on `inputs` of g
 * (as many as like has, same dtypes); its static shape is the inputs' shapes broadcast. For
 * inlining a graph that was optimised. `name` is a hint made unique. */
TrNode *tr_graph_add_fused_like(TrGraph *g, const TrNode *like, const TrOutput *inputs,
                                const char *name, GError **error);

/* A fused node's program, decoded for running. */
typedef struct TrFusedKernel TrFusedKernel;

/* Decode a fused node's program, in `arena` (freed with it). Borrowed from the arena. */
const TrFusedKernel *tr_fused_kernel_new(TrArena *arena, const TrNode *node);
/* The output shape for these inputs (their shapes broadcast together), or TensorFlow's
 * "Incompatible shapes" InvalidArgumentError. */
bool tr_fused_kernel_shape(const TrFusedKernel *k, TrTensor *const *in, TrShape *shape,
                           GError **error);
/* Fill `out` (contiguous, of the kernel's dtype and the shape above) from the inputs. The ops
 * fused never fail at run time, so neither does this. */
void tr_fused_kernel_run(const TrFusedKernel *k, TrTensor *const *in, TrTensor *out);

G_END_DECLS
