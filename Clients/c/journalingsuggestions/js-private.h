/* What the library's files share and the app never sees: the connection to pickerd (frames,
 * descriptors, the hello) and the making of public objects from the protoc-c messages. No
 * Pickerd__V1__* type appears in the public header. */
#pragma once

#include "journalingsuggestions.h"
#include "pickerd/v1/envelope.pb-c.h"

G_BEGIN_DECLS

/* Protocol/README.md section 2: the frame limits, checked on the header before any allocation. */
#define JS_MAX_FRAME_BYTES (4u * 1024u * 1024u)
#define JS_MAX_FDS_PER_FRAME 253u

typedef struct _JsConnection JsConnection;

/* Connects to RUNTIME_DIR/client.sock (RUNTIME_DIR NULL: $PICKERD_RUNTIME_DIR, else
 * $XDG_RUNTIME_DIR/pickerd) and exchanges the hellos. Blocking; for a GTask's thread. */
JsConnection *js_connection_open (const char *runtime_dir, GCancellable *cancellable, GError **error);
void js_connection_free (JsConnection *connection);

/* Sends ENVELOPE with FDS attached (each stays the caller's). Safe from any thread. */
gboolean js_connection_send (JsConnection *connection, const Pickerd__V1__Envelope *envelope,
                             const int *fds, guint n_fds, GError **error);

/* Receives one frame: its envelope (free with pickerd__v1__envelope__free_unpacked (e, NULL)) and
 * the descriptors it carried, in order (an array of int, each the caller's to close). Waits as long
 * as it takes, unless CANCELLABLE is cancelled (G_IO_ERROR_CANCELLED, the connection intact). */
Pickerd__V1__Envelope *js_connection_receive (JsConnection *connection, GArray **fds,
                                              GCancellable *cancellable, GError **error);

/* A request and its one reply (the configuration, a donation, a withdrawal). */
Pickerd__V1__Envelope *js_connection_call (JsConnection *connection, Pickerd__V1__Envelope *request,
                                           const int *fds, guint n_fds, GCancellable *cancellable,
                                           GError **error);

/* pickerd's ErrorInfo as a GError. */
void js_set_remote_error (GError **error, const Pickerd__V1__ErrorInfo *info);

/* Closes every descriptor in FDS and frees it. */
void js_close_fds (GArray *fds);

/* The outcome from an Outcome message and the frame's descriptors (duplicated: FDS stay the
 * caller's). NULL with ERROR set for an error outcome. */
JsOutcome *js_outcome_from_message (const Pickerd__V1__Outcome *outcome, GArray *fds, GError **error);

G_END_DECLS
