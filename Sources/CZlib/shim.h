#include <zlib.h>

/* inflateInit2 is a macro over inflateInit2_ (it passes the header's version and the stream size): a function form
   for Swift. */
static inline int
czlib_inflate_init2(z_streamp stream, int window_bits) {
        return inflateInit2(stream, window_bits);
}
