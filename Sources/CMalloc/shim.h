/* glibc's malloc tuning (mallopt), which the Glibc Swift module does not import. */
#include <malloc.h>
