/* The connection to pickerd's client.sock: framing (Protocol/README.md sections 2 to 5), the
 * descriptors that travel with a frame (SCM_RIGHTS on its first byte), and the hello. */
#define _GNU_SOURCE
#include "js-private.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

struct _JsConnection {
  int fd;
  GMutex write_lock;  /* a close request may be sent from the app's thread while a receive waits */
  guint64 next_id;
};

G_DEFINE_QUARK (js-error-quark, js_error)

void
js_set_remote_error (GError **error, const Pickerd__V1__ErrorInfo *info)
{
  JsError code;
  switch (info->code) {
  case PICKERD__V1__ERROR_CODE__ERROR_CODE_NOT_ENTITLED: code = JS_ERROR_NOT_ENTITLED; break;
  case PICKERD__V1__ERROR_CODE__ERROR_CODE_NO_PICKER_AVAILABLE: code = JS_ERROR_NO_PICKER_AVAILABLE; break;
  case PICKERD__V1__ERROR_CODE__ERROR_CODE_BUSY: code = JS_ERROR_BUSY; break;
  case PICKERD__V1__ERROR_CODE__ERROR_CODE_INVALID_ARGUMENT: code = JS_ERROR_INVALID_ARGUMENT; break;
  default: code = JS_ERROR_FAILED; break;
  }
  g_set_error (error, JS_ERROR, code, "%s", info->message && *info->message ? info->message : "pickerd refused the request");
}

void
js_close_fds (GArray *fds)
{
  if (fds == NULL)
    return;
  for (guint i = 0; i < fds->len; i++)
    close (g_array_index (fds, int, i));
  g_array_unref (fds);
}

static char *
client_socket_path (const char *runtime_dir, GError **error)
{
  if (runtime_dir == NULL || *runtime_dir == '\0')
    runtime_dir = g_getenv ("PICKERD_RUNTIME_DIR");
  if (runtime_dir != NULL && *runtime_dir != '\0')
    return g_build_filename (runtime_dir, "client.sock", NULL);
  const char *xdg = g_getenv ("XDG_RUNTIME_DIR");
  if (xdg == NULL || *xdg == '\0') {
    g_set_error_literal (error, JS_ERROR, JS_ERROR_UNREACHABLE, "XDG_RUNTIME_DIR is not set, so pickerd's socket cannot be found");
    return NULL;
  }
  return g_build_filename (xdg, "pickerd", "client.sock", NULL);
}

/* Waits until FD is readable or CANCELLABLE is cancelled; no timeout: a person's review takes
 * as long as it takes. */
static gboolean
wait_readable (int fd, GCancellable *cancellable, GError **error)
{
  GPollFD cancel = { .fd = -1 };
  gboolean cancellable_fd = cancellable != NULL && g_cancellable_make_pollfd (cancellable, &cancel);
  struct pollfd fds[2] = { { .fd = fd, .events = POLLIN }, { .fd = cancellable_fd ? cancel.fd : -1, .events = POLLIN } };
  gboolean ok = TRUE;
  for (;;) {
    if (g_cancellable_set_error_if_cancelled (cancellable, error)) {
      ok = FALSE;
      break;
    }
    int n = poll (fds, cancellable_fd ? 2 : 1, -1);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int saved = errno;
      g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "poll on pickerd's socket: %s", g_strerror (saved));
      ok = FALSE;
      break;
    }
    if (fds[0].revents != 0)
      break;
  }
  if (cancellable_fd)
    g_cancellable_release_fd (cancellable);
  return ok;
}

/* Reads exactly LEN bytes into BUFFER, appending any descriptors that arrive to FDS. */
static gboolean
read_exact (JsConnection *connection, guint8 *buffer, gsize len, GArray *fds, GCancellable *cancellable, GError **error)
{
  gsize done = 0;
  while (done < len) {
    if (!wait_readable (connection->fd, cancellable, error))
      return FALSE;
    union {
      char buf[CMSG_SPACE (JS_MAX_FDS_PER_FRAME * sizeof (int))];
      struct cmsghdr align;
    } control;
    struct iovec iov = { .iov_base = buffer + done, .iov_len = len - done };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf };
    ssize_t n = recvmsg (connection->fd, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
      continue;
    if (n < 0) {
      int saved = errno;
      g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "reading from pickerd: %s", g_strerror (saved));
      return FALSE;
    }
    for (struct cmsghdr *c = CMSG_FIRSTHDR (&msg); c != NULL; c = CMSG_NXTHDR (&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        continue;
      gsize count = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
      const int *received = (const int *) CMSG_DATA (c);
      for (gsize i = 0; i < count; i++) {
        int received_fd;
        memcpy (&received_fd, received + i, sizeof received_fd);
        g_array_append_val (fds, received_fd);
      }
    }
    if (msg.msg_flags & MSG_CTRUNC) {
      g_set_error_literal (error, JS_ERROR, JS_ERROR_FAILED, "pickerd sent more descriptors than a frame may carry");
      return FALSE;
    }
    if (n == 0) {
      g_set_error_literal (error, JS_ERROR, JS_ERROR_FAILED, "pickerd closed the connection");
      return FALSE;
    }
    done += (gsize) n;
  }
  return TRUE;
}

Pickerd__V1__Envelope *
js_connection_receive (JsConnection *connection, GArray **fds_out, GCancellable *cancellable, GError **error)
{
  GArray *fds = g_array_new (FALSE, FALSE, sizeof (int));
  guint8 header[8];
  guint8 *body = NULL;
  Pickerd__V1__Envelope *envelope = NULL;
  if (!read_exact (connection, header, sizeof header, fds, cancellable, error))
    goto fail;
  guint32 length = ((guint32) header[0] << 24) | ((guint32) header[1] << 16) | ((guint32) header[2] << 8) | header[3];
  guint declared = ((guint) header[4] << 8) | header[5];
  if (length > JS_MAX_FRAME_BYTES || declared > JS_MAX_FDS_PER_FRAME || header[6] != 0 || header[7] != 0) {
    g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "pickerd sent a frame out of the protocol's limits (%u bytes, %u descriptors)", length, declared);
    goto fail;
  }
  body = g_malloc (length ? length : 1);
  /* Once the first byte is read, the rest of the frame is read whatever the cancellable says: a
   * frame is never left half-read. */
  if (!read_exact (connection, body, length, fds, NULL, error))
    goto fail;
  if (fds->len != declared) {
    g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "pickerd's frame declared %u descriptors and carried %u", declared, fds->len);
    goto fail;
  }
  envelope = pickerd__v1__envelope__unpack (NULL, length, body);
  if (envelope == NULL) {
    g_set_error_literal (error, JS_ERROR, JS_ERROR_FAILED, "pickerd sent a frame that is not an Envelope");
    goto fail;
  }
  g_free (body);
  *fds_out = fds;
  return envelope;
fail:
  g_free (body);
  js_close_fds (fds);
  return NULL;
}

gboolean
js_connection_send (JsConnection *connection, const Pickerd__V1__Envelope *envelope, const int *fds, guint n_fds, GError **error)
{
  gsize length = pickerd__v1__envelope__get_packed_size (envelope);
  if (length > JS_MAX_FRAME_BYTES || n_fds > JS_MAX_FDS_PER_FRAME) {
    g_set_error_literal (error, JS_ERROR, JS_ERROR_INVALID_ARGUMENT, "the request is larger than a frame may be");
    return FALSE;
  }
  guint8 *frame = g_malloc (8 + length);
  frame[0] = (guint8) (length >> 24);
  frame[1] = (guint8) (length >> 16);
  frame[2] = (guint8) (length >> 8);
  frame[3] = (guint8) length;
  frame[4] = (guint8) (n_fds >> 8);
  frame[5] = (guint8) n_fds;
  frame[6] = frame[7] = 0;
  pickerd__v1__envelope__pack (envelope, frame + 8);
  gsize done = 0;
  gboolean ok = TRUE;
  g_mutex_lock (&connection->write_lock);
  while (done < 8 + length) {
    union {
      char buf[CMSG_SPACE (JS_MAX_FDS_PER_FRAME * sizeof (int))];
      struct cmsghdr align;
    } control;
    struct iovec iov = { .iov_base = frame + done, .iov_len = 8 + length - done };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
    if (done == 0 && n_fds > 0) {  /* the descriptors go with the frame's first byte */
      memset (&control, 0, sizeof control);
      msg.msg_control = control.buf;
      msg.msg_controllen = CMSG_SPACE (n_fds * sizeof (int));
      struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (n_fds * sizeof (int));
      memcpy (CMSG_DATA (c), fds, n_fds * sizeof (int));
    }
    ssize_t n = sendmsg (connection->fd, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int saved = errno;
      g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "writing to pickerd: %s", g_strerror (saved));
      ok = FALSE;
      break;
    }
    done += (gsize) n;
  }
  g_mutex_unlock (&connection->write_lock);
  g_free (frame);
  return ok;
}

JsConnection *
js_connection_open (const char *runtime_dir, GCancellable *cancellable, GError **error)
{
  g_autofree char *path = client_socket_path (runtime_dir, error);
  if (path == NULL)
    return NULL;
  struct sockaddr_un address = { .sun_family = AF_UNIX };
  if (strlen (path) >= sizeof address.sun_path) {
    g_set_error (error, JS_ERROR, JS_ERROR_UNREACHABLE, "pickerd's socket path is too long for a Unix socket: %s", path);
    return NULL;
  }
  memcpy (address.sun_path, path, strlen (path) + 1);
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    int saved = errno;
    g_set_error (error, JS_ERROR, JS_ERROR_FAILED, "socket: %s", g_strerror (saved));
    return NULL;
  }
  int status;
  do
    status = connect (fd, (struct sockaddr *) &address, sizeof address);
  while (status < 0 && errno == EINTR);
  if (status < 0) {
    int saved = errno;
    g_set_error (error, JS_ERROR, JS_ERROR_UNREACHABLE, "cannot reach pickerd at %s: %s", path, g_strerror (saved));
    close (fd);
    return NULL;
  }
  JsConnection *connection = g_new0 (JsConnection, 1);
  connection->fd = fd;
  connection->next_id = 1;
  g_mutex_init (&connection->write_lock);

  /* The hello names only the role and the library: who the app is, pickerd asks the kernel. */
  Pickerd__V1__Hello hello = PICKERD__V1__HELLO__INIT;
  hello.min_version = 1;
  hello.max_version = 1;
  hello.role = PICKERD__V1__ROLE__ROLE_CLIENT;
  hello.software = (char *) "libjournalingsuggestions-1";
  Pickerd__V1__Envelope request = PICKERD__V1__ENVELOPE__INIT;
  request.body_case = PICKERD__V1__ENVELOPE__BODY_HELLO;
  request.hello = &hello;
  Pickerd__V1__Envelope *reply = js_connection_call (connection, &request, NULL, 0, cancellable, error);
  if (reply == NULL) {
    js_connection_free (connection);
    return NULL;
  }
  gboolean ok = reply->body_case == PICKERD__V1__ENVELOPE__BODY_HELLO_REPLY && reply->hello_reply->version == 1;
  if (!ok)
    g_set_error_literal (error, JS_ERROR, JS_ERROR_FAILED, "pickerd did not answer the hello with protocol version 1");
  pickerd__v1__envelope__free_unpacked (reply, NULL);
  if (!ok) {
    js_connection_free (connection);
    return NULL;
  }
  return connection;
}

Pickerd__V1__Envelope *
js_connection_call (JsConnection *connection, Pickerd__V1__Envelope *request, const int *fds, guint n_fds,
                    GCancellable *cancellable, GError **error)
{
  request->request_id = connection->next_id++;
  if (!js_connection_send (connection, request, fds, n_fds, error))
    return NULL;
  for (;;) {
    GArray *received = NULL;
    Pickerd__V1__Envelope *reply = js_connection_receive (connection, &received, cancellable, error);
    if (reply == NULL)
      return NULL;
    js_close_fds (received);  /* no reply to a call carries media */
    if (reply->request_id != request->request_id) {
      pickerd__v1__envelope__free_unpacked (reply, NULL);
      continue;
    }
    if (reply->body_case == PICKERD__V1__ENVELOPE__BODY_ERROR) {
      js_set_remote_error (error, reply->error);
      pickerd__v1__envelope__free_unpacked (reply, NULL);
      return NULL;
    }
    return reply;
  }
}

void
js_connection_free (JsConnection *connection)
{
  if (connection == NULL)
    return;
  close (connection->fd);
  g_mutex_clear (&connection->write_lock);
  g_free (connection);
}
