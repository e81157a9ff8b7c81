/* kernel-dap.h — Jupyter's debug protocol (debug_request / debug_reply on control, debug_event
 * on iopub), served by debugpy running inside the kernel: see kernel-dap.c.
 *
 * The engine makes one TkDap per kernel and hands it every debug_request from the control
 * thread; every function here is called on the control thread, except tk_dap_new and
 * tk_dap_free (main thread, before the control thread starts and after it ended).
 */
#pragma once

#include "kernel-private.h"

G_BEGIN_DECLS

typedef struct TkDap TkDap;

/* A debug protocol server for `interp` (borrowed, outlives it) publishing its events with a
 * copy of `sender` (its own signer; the iopub socket and lock stay shared). Transfer full. */
TkDap *tk_dap_new(TkInterp *interp, const TkSender *sender);
/* Frees `dap`; tk_dap_close must have run (the reader thread publishes on iopub). */
void tk_dap_free(TkDap *dap);
/* Whether the interpreter can be debugged (kernel_info's "debugger"). */
bool tk_dap_available(const TkDap *dap);
/* The debug_reply content for `request` (a debug_request received over the control connection
 * with file descriptor `peer_fd`, or -1 when unknown). Never NULL: malformed and failed requests
 * get a DAP response with success false and a message. Transfer full. */
json_t *tk_dap_request(TkDap *dap, const TkMessage *request, int peer_fd);
/* The control connection `fd` closed: if its client opened the debug session, the session ends
 * (debugpy resumes whatever was stopped). */
void tk_dap_peer_gone(TkDap *dap, int fd);
/* Ends the session, if any, and stops the reader thread (the kernel shuts down). */
void tk_dap_close(TkDap *dap);

G_END_DECLS
