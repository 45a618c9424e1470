// Swift cannot import OpenSSL's function-like macros (stack accessors, SSL_CTX_ctrl wrappers,
// flag expressions). Each is wrapped here as a `static inline` function; nothing else lives here.
#ifndef STRATA_COPENSSL_SHIM_H
#define STRATA_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// OpenSSL initialized without the cleanup it otherwise registers with atexit() (it is a function,
// but the flag expression is what Swift cannot import). See OpenSSLLibrary.swift for why.
static inline int strata_OPENSSL_init_without_atexit(void) {
    return OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT | OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL);
}

// STACK_OF(X509): the verified chain from SSL_get0_verified_chain / X509_STORE_CTX_get1_chain.
static inline int strata_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *strata_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline STACK_OF(X509) *strata_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int strata_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) { return sk_X509_push(stack, certificate); }
static inline void strata_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline void strata_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }

// Memory BIOs and buffers allocated by OpenSSL.
static inline long strata_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline void strata_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }

// Distinguished names as one escaped RFC 2253 line, UTF-8 kept readable (control characters and
// separators are still escaped, so a name can never break a one-line-per-certificate message).
static inline unsigned long strata_XN_FLAG_RFC2253_UTF8(void) {
    return (XN_FLAG_RFC2253 & ~ASN1_STRFLGS_ESC_MSB) | ASN1_STRFLGS_UTF8_CONVERT;
}

// SSL_CTX / SSL controls used by StrataPinning's TLS client (TLSClientContext, TLSSession).
static inline int strata_SSL_CTX_set_min_proto_version(SSL_CTX *context, int version) { return (int)SSL_CTX_set_min_proto_version(context, version); }
static inline int strata_SSL_CTX_set_max_proto_version(SSL_CTX *context, int version) { return (int)SSL_CTX_set_max_proto_version(context, version); }
static inline long strata_SSL_CTX_set_mode(SSL_CTX *context, long mode) { return SSL_CTX_set_mode(context, mode); }
static inline long strata_SSL_CTX_set_session_cache_mode(SSL_CTX *context, long mode) { return SSL_CTX_set_session_cache_mode(context, mode); }
static inline int strata_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return (int)SSL_set_tlsext_host_name(ssl, name); }
static inline uint64_t strata_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t strata_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
// A client identity's intermediates, sent after its certificate (TLSClientCredential).
static inline int strata_SSL_add1_chain_cert(SSL *ssl, X509 *certificate) { return (int)SSL_add1_chain_cert(ssl, certificate); }

#endif
