#!/usr/bin/env bash
# Regenerates the StrataPinning test certificates with the system `openssl` CLI (3.0).
# The output is committed: tests hard-code the pins below as known answers, so running this
# script again changes every key and the known-answer tests must be updated from pins.txt.
#
#   ca            private root CA (EC P-256), 100 years
#   intermediate  intermediate CA issued by ca (EC P-256), 100 years
#   leaf-ec       localhost / api.strata.test / 127.0.0.1, EC P-256, issued by ca
#   leaf-rsa      same names, RSA 2048, issued by ca
#   leaf-via-intermediate  same names, EC P-256, issued by intermediate
#   expired       same names, valid 2000-01-01 .. 2001-01-01, issued by ca
#   not-yet-valid same names, valid from 2100-01-01, issued by ca
#   wrong-host    wrong.example.net only, issued by ca
#   self-signed   same names as leaf-ec, signs itself
#   attacker-ca   an unrelated CA; attacker-leaf (localhost) is issued by it. A "forged chain"
#                 is attacker-leaf.pem followed by the genuine ca.pem (CVE-2016-2402 shape).
#   san-less      CN=localhost and no subjectAltName at all, issued by ca (a client must not fall
#                 back to the subject CN: RFC 6125 §6.4.4).
#   client-ca     a private CA for client certificates (EC P-256), apart from ca
#   client        a client certificate (extendedKeyUsage clientAuth, CN=strata-test-client) issued
#                 by client-ca; client-encrypted.key is its key under the passphrase in
#                 client-passphrase.txt (PKCS #8, AES-256)
#   client-untrusted  a client certificate issued by attacker-ca (a server trusting client-ca refuses it)
#   client-second a second client certificate (CN=strata-test-client-2, its own key) issued by
#                 client-ca: another caller the same server accepts
# `./make-fixtures.sh san-less` makes only san-less (with the existing ca), and
# `./make-fixtures.sh client` only the client-* files (with the existing attacker-ca), and
# `./make-fixtures.sh client-second` only client-second (with the existing client-ca), leaving every
# other key and pin as it is.
# Private keys are committed on purpose: they are test-only and the TLS test server needs them.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ec_key()  { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null; }
rsa_key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null; }

cat > "$work/ca.ext" <<'X'
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
X
cat > "$work/leaf.ext" <<'X'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost, DNS:api.strata.test, IP:127.0.0.1
subjectKeyIdentifier = hash
X
cat > "$work/wrong-host.ext" <<'X'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:wrong.example.net
X

cat > "$work/san-less.ext" <<'X'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
X

cat > "$work/client.ext" <<'X'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
X

csr()       { openssl req -new -key "$1.key" -subj "$2" -out "$work/$1.csr"; }
self_sign() { openssl x509 -req -in "$work/$1.csr" -signkey "$1.key" -days 36500 -extfile "$work/$2" -set_serial "0x$(openssl rand -hex 8)" -out "$1.pem" 2>/dev/null; }
issue()     { openssl x509 -req -in "$work/$1.csr" -CA "$2.pem" -CAkey "$2.key" -days 36500 -extfile "$work/$3" -set_serial "0x$(openssl rand -hex 8)" -out "$1.pem" 2>/dev/null; }

# Certificates with dates in the past or future need `openssl ca` (x509 -req only takes -days).
mkdir -p "$work/newcerts"; touch "$work/index.txt"; echo 1000 > "$work/serial"
cat > "$work/ca.cnf" <<X
[ ca ]
default_ca = test_ca
[ test_ca ]
database = $work/index.txt
new_certs_dir = $work/newcerts
serial = $work/serial
default_md = sha256
policy = any_name
unique_subject = no
[ any_name ]
organizationName = optional
commonName = supplied
X
dated() { openssl ca -batch -notext -config "$work/ca.cnf" -cert ca.pem -keyfile ca.key -in "$work/$1.csr" \
            -startdate "$2" -enddate "$3" -extfile "$work/leaf.ext" -out "$1.pem" 2>/dev/null; }

san_less() { ec_key san-less; csr san-less "/O=Strata Tests/CN=localhost"; issue san-less ca san-less.ext; }
client() {
    ec_key client-ca; csr client-ca "/O=Strata Tests/CN=Strata Test Client CA"; self_sign client-ca ca.ext
    ec_key client;    csr client "/O=Strata Tests/CN=strata-test-client";  issue client client-ca client.ext
    echo "correct horse battery staple" > client-passphrase.txt
    openssl pkey -in client.key -aes256 -passout file:client-passphrase.txt -out client-encrypted.key
    ec_key client-untrusted; csr client-untrusted "/O=Mallory/CN=strata-test-client"; issue client-untrusted attacker-ca client.ext
    client_second
}
client_second() {
    ec_key client-second; csr client-second "/O=Strata Tests/CN=strata-test-client-2"; issue client-second client-ca client.ext
}
# Replaces the pins of the named certificates in pins.txt, keeping every other line.
repin() {
    pattern=$(printf '^%s |' "$@"); grep -Ev "${pattern%|}" pins.txt > "$work/pins" || true
    cp "$work/pins" pins.txt
    for cert in "$@"; do
        echo "$cert sha256/$(openssl x509 -in "$cert.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)" >> pins.txt
    done
}
case "${1:-}" in
    san-less) san_less; repin san-less; exit 0 ;;
    client) client; repin client-ca client client-untrusted client-second; exit 0 ;;
    client-second) client_second; repin client-second; exit 0 ;;
esac

ec_key ca;           csr ca "/O=Strata Tests/CN=Strata Test Root CA";      self_sign ca ca.ext
ec_key intermediate; csr intermediate "/O=Strata Tests/CN=Strata Test Intermediate CA"; issue intermediate ca ca.ext
ec_key leaf-ec;      csr leaf-ec "/O=Strata Tests/CN=localhost";           issue leaf-ec ca leaf.ext
rsa_key leaf-rsa;    csr leaf-rsa "/O=Strata Tests/CN=localhost RSA";      issue leaf-rsa ca leaf.ext
ec_key leaf-via-intermediate; csr leaf-via-intermediate "/O=Strata Tests/CN=localhost via intermediate"
issue leaf-via-intermediate intermediate leaf.ext
ec_key expired;      csr expired "/O=Strata Tests/CN=expired localhost";   dated expired 20000101000000Z 20010101000000Z
ec_key not-yet-valid; csr not-yet-valid "/O=Strata Tests/CN=future localhost"; dated not-yet-valid 21000101000000Z 21010101000000Z
ec_key wrong-host;   csr wrong-host "/O=Strata Tests/CN=wrong.example.net"; issue wrong-host ca wrong-host.ext
ec_key self-signed;  csr self-signed "/O=Strata Tests/CN=self-signed localhost"; self_sign self-signed leaf.ext
ec_key attacker-ca;  csr attacker-ca "/O=Mallory/CN=Attacker Root CA";     self_sign attacker-ca ca.ext
ec_key attacker-leaf; csr attacker-leaf "/O=Mallory/CN=localhost";         issue attacker-leaf attacker-ca leaf.ext
san_less
client

openssl x509 -in leaf-ec.pem -outform der -out leaf-ec.der
cat leaf-via-intermediate.pem intermediate.pem > leaf-via-intermediate-chain.pem
cat attacker-leaf.pem ca.pem > forged-chain.pem

# Known answers: the pin pipeline from SECURITY.md, run on every certificate.
: > pins.txt
for cert in ca intermediate leaf-ec leaf-rsa leaf-via-intermediate expired not-yet-valid wrong-host self-signed attacker-ca attacker-leaf san-less client-ca client client-untrusted client-second; do
    pin=$(openssl x509 -in "$cert.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)
    echo "$cert sha256/$pin" >> pins.txt
done
cat pins.txt
