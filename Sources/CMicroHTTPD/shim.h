#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Variadic C functions do not import into Swift: fixed-arity wrappers for the three the HTTP server needs. */

/* MHD_start_daemon with every option in one MHD_OPTION_END-terminated array (MHD_OPTION_ARRAY); no accept policy. */
static inline struct MHD_Daemon *
cmhd_start_daemon(unsigned int flags,
                  uint16_t port,
                  MHD_AccessHandlerCallback handler,
                  void *handler_cls,
                  const struct MHD_OptionItem *options) {
        return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                                MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/* The port the daemon is bound to (the chosen one when started with port 0), or 0 when unknown. */
static inline uint16_t
cmhd_daemon_bind_port(struct MHD_Daemon *daemon) {
        const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
        return info == NULL ? 0 : info->port;
}

/* The connection's socket, or -1 when unknown. */
static inline int
cmhd_connection_fd(struct MHD_Connection *connection) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        return info == NULL ? -1 : info->connect_fd;
}
