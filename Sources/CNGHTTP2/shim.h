// The system nghttp2 (Debian: apt install libnghttp2-dev), for StrataPinning's HTTP/2 client.
// nghttp2's API is plain functions, enums and structs, all of which Swift imports; this header
// only names it for the module map. Wrap any function-like macro here should one be needed.
#ifndef STRATA_CNGHTTP2_SHIM_H
#define STRATA_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

#endif
