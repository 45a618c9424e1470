#!/usr/bin/env bash
# Checks StrataPinning's layering (issue 24): C libraries stay in their folders, and the folders
# depend downwards only. Fails (exit 1), listing every offending line, when either rule breaks.
#
# How it checks, on Sources/StrataPinning with comments and string literals removed first (a doc
# comment may name `SSL_read`, an error message may point at `PinningTransport.Configuration`;
# neither is a dependency):
#
# 1. C confinement. An OpenSSL symbol (`import COpenSSL`, `SSL_…`, `SSL_CTX_…`, `X509_…`, `EVP_…`,
#    `BIO_…`, `ERR_…`, `PEM_…`, `TLS_client_method`, the shim's `strata_SSL…`/`strata_BIO…`) may
#    appear only under `OpenSSL/`; an nghttp2 one (`import CNGHTTP2`, `nghttp2_…`, `NGHTTP2_…`)
#    only under `NGHTTP2/`. Only Swift values leave those folders.
#
# 2. Folder order. The folders are ranked bottom-up in LAYERS below (folders on one line are one
#    layer and may use each other). For every folder, each type name declared (`struct`, `class`,
#    `enum`, `protocol`, `actor`, `typealias`, at the top level) in a folder of a HIGHER layer must not appear as a
#    word in it. A type name is the dependency a Swift file can have on another file of its
#    module (there are no imports inside a module), so no upward name means no upward dependency.
#    A file listed in FILE_LAYERS is ranked by itself (a file that no longer exists is skipped).
#    The socket, the resolver, address racing and the connection thread are not in this module:
#    they are the StrataConnect target, below every folder here.
#
# Usage: scripts/layering-check.sh   (from anywhere; no build needed, about a second)
set -euo pipefail
cd "$(dirname "$0")/.."
module=Sources/StrataPinning

# Bottom-up: values → connect → TLS → protocols → pool → transport.
#   0 values:    what every layer speaks and that uses nothing else of the module: a one-shot
#                completion, HTTP semantics shared by both protocols (RFC 9110 grammar, request
#                validation and target, HTTPLimits), SPKI pins.
#   1 connect:   OpenSSL's wrappers and the values they produce and check (certificates, trust
#                roots and errors, host names, evaluators, client identities), name resolution
#                and address racing, the proxy tunnel. Knows no HTTP exchange.
#   2 TLS:       a verified TLS session over a connected socket (handshake, ALPN, peer checks), and
#                VerifiedTLS/, the same for other modules' protocols (StrataRedis's rediss://).
#   3 protocols: HTTP/1.1, HTTP/2 (over nghttp2), content decoding: exchanges over one stream.
#   4 pool:      keep-alive HTTP/1.1 connections, HTTP/2 connections per host, the job a
#                connection's thread runs, its events (ConnectionEvent) and failures.
#   5 transport: PinningTransport, its configuration and events, which it maps from below.
LAYERS=(
    "Concurrency Semantics Pins"
    "OpenSSL Certificate Trust Hosts Evaluators ClientAuthentication Connect Proxy"
    "TLS VerifiedTLS"
    "HTTP1 HTTP2 NGHTTP2 Compression ContentCoding"
    "Pool"
    "Transport"
)
# Files ranked on their own, as "path:layer-index" (index into LAYERS).
FILE_LAYERS=(
    "Pool/ConnectionThreadLimit.swift:1"
)

# The Swift source of a file without comments and string literals.
code_of() {
    sed -E -e 's#//.*$##' -e 's/"([^"\\]|\\.)*"/""/g' "$1"
}

failures=0
report() {
    echo "layering: $1" >&2
    failures=$((failures + 1))
}

# --- 1. C libraries inside their folders -------------------------------------------------------
openssl='(import COpenSSL|\b(SSL|SSL_CTX|X509|EVP|BIO|ERR|PEM)_[A-Za-z0-9_]+|\bTLS_client_method\b|\bstrata_(SSL|BIO|X509)[A-Za-z0-9_]*)'
nghttp2='(import CNGHTTP2|\bnghttp2_[A-Za-z0-9_]+|\bNGHTTP2_[A-Za-z0-9_]+)'
while IFS= read -r file; do
    relative=${file#"$module"/}
    folder=${relative%%/*}
    code=$(code_of "$file")
    if [ "$folder" != OpenSSL ]; then
        while IFS= read -r line; do
            [ -n "$line" ] && report "$relative: OpenSSL outside OpenSSL/: $line"
        done < <(grep -nE "$openssl" <<<"$code" || true)
    fi
    if [ "$folder" != NGHTTP2 ]; then
        while IFS= read -r line; do
            [ -n "$line" ] && report "$relative: nghttp2 outside NGHTTP2/: $line"
        done < <(grep -nE "$nghttp2" <<<"$code" || true)
    fi
done < <(find "$module" -name '*.swift' | sort)

# --- 2. Folders depend downwards only ------------------------------------------------------------
declare -A layer_of_folder
for index in "${!LAYERS[@]}"; do
    for folder in ${LAYERS[$index]}; do layer_of_folder[$folder]=$index; done
done
declare -A layer_of_file
for entry in "${FILE_LAYERS[@]}"; do layer_of_file[${entry%%:*}]=${entry##*:}; done

# The layer of a file (path relative to the module); unranked folders fail the check.
layer() {
    local relative=$1 folder=${1%%/*}
    if [ -n "${layer_of_file[$relative]+x}" ]; then echo "${layer_of_file[$relative]}"; return; fi
    if [ -n "${layer_of_folder[$folder]+x}" ]; then echo "${layer_of_folder[$folder]}"; return; fi
    echo ""
}

# Type names declared per layer.
declare -A names_of_layer
files=()
while IFS= read -r file; do files+=("$file"); done < <(find "$module" -name '*.swift' | sort)
for file in "${files[@]}"; do
    relative=${file#"$module"/}
    index=$(layer "$relative")
    if [ -z "$index" ]; then
        report "$relative: folder ${relative%%/*} is not ranked in scripts/layering-check.sh LAYERS"
        continue
    fi
    # Top-level declarations only (no indentation): a nested type is reached through its parent.
    declared=$(code_of "$file" | grep -oE '^((public|package|internal|private|fileprivate|final|indirect|nonisolated) +)*(struct|class|enum|protocol|actor|typealias) +[A-Za-z_][A-Za-z0-9_]*' \
        | awk '{print $NF}' || true)
    names_of_layer[$index]+=" $declared"
done

for file in "${files[@]}"; do
    relative=${file#"$module"/}
    index=$(layer "$relative")
    [ -z "$index" ] && continue
    code=$(code_of "$file")
    for above in "${!LAYERS[@]}"; do
        [ "$above" -le "$index" ] && continue
        names=$(echo ${names_of_layer[$above]:-} | tr ' ' '|')
        [ -z "$names" ] && continue
        # One grep per layer above: each hit prints the line once per upward name it holds.
        while IFS= read -r hit; do
            [ -n "$hit" ] && report "$relative (layer $index) uses ${hit#*:} from layer $above (${LAYERS[$above]}), line ${hit%%:*}"
        done < <(grep -noE "\b($names)\b" <<<"$code" || true)
    done
done

if [ "$failures" -gt 0 ]; then
    echo "layering: $failures violation(s); see the rules at the top of scripts/layering-check.sh and docs/architecture.md" >&2
    exit 1
fi
echo "layering: OpenSSL only in OpenSSL/, nghttp2 only in NGHTTP2/, every folder depends downwards"
