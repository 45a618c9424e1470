// The system zlib (Debian: apt install zlib1g-dev), for StrataPinning's gzip and deflate content
// decoding. Swift cannot import zlib's function-like macros (`inflateInit2` passes the library
// version and the stream's size to `inflateInit2_`); each is wrapped here as a `static inline`
// function, and nothing else lives here.
#ifndef STRATA_CZLIB_SHIM_H
#define STRATA_CZLIB_SHIM_H

#include <zlib.h>

static inline int strata_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

static inline int strata_deflateInit2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

#endif
