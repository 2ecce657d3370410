// C entry points around libmicrohttpd for the HTTP module.
//
// Swift cannot call C's variadic functions, and libmicrohttpd takes its settings
// (`MHD_start_daemon`) and answers questions about a connection (`MHD_get_connection_info`)
// through them. The functions below give those calls fixed signatures, create the listening
// socket (so that a failure to bind reports its errno), and route libmicrohttpd's own error
// messages to standard error as single lines. Every symbol carries the module's prefix.
#ifndef CMICROHTTPDSHIMS_H
#define CMICROHTTPDSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The longest text of an IP address `cmicrohttpdshims_client_address` writes, with its NUL.
#define CMICROHTTPDSHIMS_ADDRESS_LENGTH 64

/// What `cmicrohttpdshims_listen` returns when `address` is not an IPv4 or IPv6 literal.
#define CMICROHTTPDSHIMS_NOT_AN_ADDRESS (-1)

/// libmicrohttpd's callback for the raw request target, before it is parsed
/// (`MHD_OPTION_URI_LOG_CALLBACK`): its result becomes the request's context pointer.
typedef void *(*cmicrohttpdshims_uri_callback)(void *cls, const char *uri,
                                               struct MHD_Connection *connection);

/// Everything `cmicrohttpdshims_start` passes to `MHD_start_daemon`.
typedef struct {
  /// A bound, listening socket (from `cmicrohttpdshims_listen`); the daemon does not close it
  /// once quiesced.
  int listen_fd;
  /// Threads of libmicrohttpd's internal polling pool (1: a single polling thread).
  unsigned int threads;
  /// Seconds without activity before a connection is closed (`MHD_OPTION_CONNECTION_TIMEOUT`).
  unsigned int connection_timeout;
  /// `MHD_OPTION_CONNECTION_LIMIT`.
  unsigned int connection_limit;
  /// `MHD_OPTION_PER_IP_CONNECTION_LIMIT`.
  unsigned int per_address_limit;
  /// `MHD_OPTION_CONNECTION_MEMORY_LIMIT`, in bytes.
  size_t memory_limit;
  MHD_AccessHandlerCallback access_handler;
  MHD_RequestCompletedCallback request_completed;
  MHD_NotifyConnectionCallback connection_notification;
  cmicrohttpdshims_uri_callback uri_callback;
  /// The closure every callback receives.
  void *context;
} cmicrohttpdshims_settings;

/// Creates a TCP socket bound to `address` (an IPv4 or IPv6 literal) and `port` (0: any free
/// port) with address reuse (`SO_REUSEADDR`), close-on-exec and non-blocking, and listening.
/// Returns 0 with the socket and the port bound, `CMICROHTTPDSHIMS_NOT_AN_ADDRESS`, or the
/// `errno` of the call that failed.
int cmicrohttpdshims_listen(const char *address, int port, int *socket_out, int *port_out);

/// Starts the daemon: epoll in internal polling threads, suspend and resume allowed, the
/// opportunistic reads and writes of `MHD_USE_TURBO`, libmicrohttpd's messages routed to
/// standard error. NULL when libmicrohttpd refuses (it then logs why).
struct MHD_Daemon *cmicrohttpdshims_start(const cmicrohttpdshims_settings *settings);

/// The connection's socket (`MHD_CONNECTION_INFO_CONNECTION_FD`), or -1.
int cmicrohttpdshims_connection_socket(struct MHD_Connection *connection);

/// Writes the client's IP address as text into `buffer` (IPv4-mapped IPv6 addresses as plain
/// IPv4). Returns its length, 0 when it cannot be had.
size_t cmicrohttpdshims_client_address(struct MHD_Connection *connection, char *buffer,
                                       size_t size);

/// The pointer the connection notification stored in the connection's socket context
/// (`MHD_CONNECTION_INFO_SOCKET_CONTEXT`), or NULL.
void *cmicrohttpdshims_socket_context(struct MHD_Connection *connection);

/// The status of the response queued on the connection (`MHD_CONNECTION_INFO_HTTP_STATUS`): the
/// application's or one libmicrohttpd made itself (400, 413, 431…); 0 when there is none.
unsigned int cmicrohttpdshims_response_status(struct MHD_Connection *connection);

/// Raises this process's soft limit of open files (RLIMIT_NOFILE) to its hard limit. Returns
/// the soft limit now in force.
uint64_t cmicrohttpdshims_raise_open_file_limit(void);

/// How many CPUs this process may run on (`sched_getaffinity`), at least 1.
int cmicrohttpdshims_available_cpus(void);

/// Lets malloc keep at most `arenas` arenas for all the process's threads (`mallopt`
/// `M_ARENA_MAX`); returns 1 on success.
int cmicrohttpdshims_limit_malloc_arenas(int arenas);

/// Gives the memory malloc holds free back to the system, in every arena (`malloc_trim(0)`);
/// returns 1 when some was released.
int cmicrohttpdshims_release_free_memory(void);

/// Makes the calling thread `niceness` nicer than it is (Linux keeps a nice value a thread);
/// returns 0, or -1 with errno as setpriority left it.
int cmicrohttpdshims_lower_thread_priority(int niceness);

#ifdef __cplusplus
}
#endif

#endif
