// The system brotli decoder (Debian: apt install libbrotli-dev), for StrataPinning's `br`
// content decoding. Its API is plain functions and enums, all of which Swift imports; this
// header only names it for the module map. Package.swift uses this target only where the
// header is installed, so a build without brotli still works (without `br`).
#ifndef STRATA_CBROTLI_SHIM_H
#define STRATA_CBROTLI_SHIM_H

#include <brotli/decode.h>

#endif
