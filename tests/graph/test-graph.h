/* test-graph.h — helpers shared by the core/graph tests: building small graphs the way a trace
 * builds them, running them, and capturing tf.print output. */
#pragma once

#include "../tensor/test-util.h"
#include "tr-graph.h"
#include "tr-plan.h"

/* Output 0 of a node, for building: OUT(node). */
#define OUT(node) tr_node_output((node), 0)

/* A placeholder named after its parameter: tg_placeholder(g, TR_INT32, DIMS(TR_UNKNOWN), "x"). */
TrNode *tg_placeholder(TrGraph *g, TrDType dtype, int rank, const int64_t *dims, const char *name);
/* An op that must build; NULL attrs for defaults, NULL name for the op's default. */
TrNode *tg_op(TrGraph *g, TrOpId op, TrNode *a, TrNode *b, const char *name);
/* A Const node taking `value` (consumed). */
TrNode *tg_const(TrGraph *g, TrTensor *value);
/* A variable holding `initial` (consumed). */
TrVariable *tg_variable(TrTensor *initial, const char *name);
/* Mark a node's output 0 as a result. */
TrNode *tg_output(TrGraph *g, TrNode *value);

/* Plan the graph's outputs, run once, return output `which` (transfer full). */
TrTensor *tg_run(TrGraph *g, TrTensor *const *inputs, int n_inputs, int which);

/* A tf.print sink that appends to a GString. */
typedef struct {
  GString *text; /* what was printed */
  int calls;     /* PrintV2 executions */
} TgSink;
void tg_sink_write(const char *text, size_t len, bool to_stderr, void *user);
#define TG_SINK_CONTEXT(sink) ((TrRunContext){.write = tg_sink_write, .user = (sink)})

/* Each file's tests. */
void tg_add_build_tests(void);
void tg_add_export_tests(void);
void tg_add_exec_tests(void);
void tg_add_optimize_tests(void);
void tg_add_inline_tests(void);
void tg_add_while_tests(void);
void tg_add_fuse_tests(void);
