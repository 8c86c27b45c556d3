/* SPDX-License-Identifier: MIT */
/* What a sandboxed client sends first on an intercepted TLS connection: the
 * ClientHello's server name (net/sni.c). Invariants: a name found is a host
 * name; the bytes after the first record change nothing; NEED_MORE only
 * short of one record; a name that does not fit is refused, not cut. */
#include <stdio.h>

#include "fuzz.h"
#include "net/dns.h"
#include "net/sni.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char name[DNS_NAME_MAX + 1];
        int r = tls_client_hello_sni(data, size, name, sizeof(name));
        FUZZ_ASSERT(r == SNI_FOUND || r == SNI_NONE || r == SNI_NEED_MORE || r == SNI_NOT_TLS ||
                    r == SNI_MALFORMED);
        if (r == SNI_NEED_MORE) {
                FUZZ_ASSERT(size < TLS_RECORD_MAX);
                return 0;
        }
        if (r == SNI_FOUND)
                FUZZ_ASSERT(dns_name_valid(name));
        if (r == SNI_NOT_TLS || size < 5)
                return 0;
        size_t rec = 5 + ((size_t)data[3] << 8 | data[4]);
        if (rec < size) { /* the first record alone reads the same */
                char again[DNS_NAME_MAX + 1];
                FUZZ_ASSERT(tls_client_hello_sni(data, rec, again, sizeof(again)) == r);
                FUZZ_ASSERT(r != SNI_FOUND || strcmp(again, name) == 0);
        }
        if (r == SNI_FOUND) {
                char small[16];
                int s = tls_client_hello_sni(data, size, small, sizeof(small));
                FUZZ_ASSERT(strlen(name) < sizeof(small) ? s == SNI_FOUND && strcmp(small, name) == 0
                                                         : s == SNI_MALFORMED);
        }
        return 0;
}
