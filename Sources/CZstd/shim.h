// The system zstd (Debian: apt install libzstd-dev), for StrataPinning's `zstd` content decoding
// (RFC 8878). Its API is plain functions, enums and structs, all of which Swift imports; this
// header only names it for the module map. Package.swift uses this target only where the header
// is installed, so a build without zstd still works (without `zstd`).
#ifndef STRATA_CZSTD_SHIM_H
#define STRATA_CZSTD_SHIM_H

#include <zstd.h>

#endif
