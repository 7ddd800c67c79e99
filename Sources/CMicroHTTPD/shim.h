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

/* The connection's socket, or -1 when unknown. */
static inline int
cmhd_connection_fd(struct MHD_Connection *connection) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        return info == NULL ? -1 : info->connect_fd;
}

/* The client's socket address (valid while the connection lives), or NULL when unknown. */
static inline const struct sockaddr *
cmhd_connection_client_address(struct MHD_Connection *connection) {
        const union MHD_ConnectionInfo *info =
            MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        return info == NULL ? NULL : info->client_addr;
}
