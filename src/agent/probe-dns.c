#include "probe-dns.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "basic/macro.h"

#define DNS_HEADER      12
#define DNS_ANSWERS_MAX 64

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

static bool label_char(char c) {
        return isalnum((unsigned char)c) || c == '-' || c == '_';
}

bool dns_name_valid(const char *name) {
        size_t len = strnlen(name, DNS_NAME_MAX + 2), label = 0;
        if (len > 0 && name[len - 1] == '.')
                len--;
        if (len == 0 || len > DNS_NAME_MAX)
                return false;
        for (size_t i = 0; i < len; i++) {
                if (name[i] == '.') {
                        if (label == 0)
                                return false;
                        label = 0;
                } else if (!label_char(name[i]) || ++label > 63)
                        return false;
        }
        return label > 0;
}

/* The next blank-separated word of [*p, end): its start and length, 0 at the end. */
static size_t next_word(const char **p, const char *end, const char **ret) {
        while (*p < end && is_blank(**p))
                (*p)++;
        *ret = *p;
        while (*p < end && !is_blank(**p))
                (*p)++;
        return (size_t)(*p - *ret);
}

static bool word_is(const char *w, size_t n, const char *key) {
        return n == strlen(key) && memcmp(w, key, n) == 0;
}

static void parse_search(const char *p, const char *end, struct resolv_view *v) {
        const char *w;
        size_t n;
        v->n_search = 0;
        while ((n = next_word(&p, end, &w)) > 0 && v->n_search < DNS_SEARCH_MAX) {
                if (n > DNS_NAME_MAX)
                        continue;
                char *dst = v->search[v->n_search];
                memcpy(dst, w, n);
                dst[n] = '\0';
                if (dns_name_valid(dst))
                        v->n_search++;
        }
}

static void parse_options(const char *p, const char *end, struct resolv_view *v) {
        const char *w;
        size_t n;
        while ((n = next_word(&p, end, &w)) > 0)
                if (n > 6 && n <= 9 && memcmp(w, "ndots:", 6) == 0) {
                        int x = 0;
                        bool digits = true;
                        for (size_t i = 6; i < n; i++) {
                                digits = digits && isdigit((unsigned char)w[i]);
                                x = x * 10 + (w[i] - '0');
                        }
                        if (digits)
                                v->ndots = MIN(x, DNS_NDOTS_MAX);
                }
}

void resolv_view_parse(const char *text, size_t len, struct resolv_view *ret) {
        struct resolv_view v = { .ndots = 1 };
        const char *end = text + len;
        net_nameservers_parse(text, len, &v.ns);
        for (const char *p = text; p < end;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
                const char *nul = memchr(p, '\0', (size_t)(eol - p)), *line_end = nul ? nul : eol;
                const char *w, *q = p;
                size_t n = next_word(&q, line_end, &w);
                if (word_is(w, n, "search") || word_is(w, n, "domain"))
                        parse_search(q, line_end, &v);
                else if (word_is(w, n, "options"))
                        parse_options(q, line_end, &v);
                p = eol + 1;
        }
        *ret = v;
}

static size_t add_candidate(
        char ret[DNS_CANDIDATES_MAX][DNS_NAME_MAX + 1], size_t n, const char *name, const char *domain) {
        size_t a = strlen(name), b = domain ? strlen(domain) : 0;
        if (n >= DNS_CANDIDATES_MAX || a + (b ? b + 1 : 0) > DNS_NAME_MAX)
                return n;
        memcpy(ret[n], name, a);
        if (b) {
                ret[n][a] = '.';
                memcpy(ret[n] + a + 1, domain, b);
        }
        ret[n][a + (b ? b + 1 : 0)] = '\0';
        return n + 1;
}

size_t resolv_candidates(
        const struct resolv_view *v, const char *name, char ret[DNS_CANDIDATES_MAX][DNS_NAME_MAX + 1]) {
        size_t len = strnlen(name, DNS_NAME_MAX + 2), dots = 0, n = 0;
        if (!dns_name_valid(name))
                return 0;
        if (name[len - 1] == '.') { /* absolute: only itself */
                char plain[DNS_NAME_MAX + 1];
                memcpy(plain, name, len - 1);
                plain[len - 1] = '\0';
                return add_candidate(ret, 0, plain, NULL);
        }
        for (size_t i = 0; i < len; i++)
                dots += name[i] == '.';
        bool first = (int)dots >= v->ndots;
        if (first)
                n = add_candidate(ret, n, name, NULL);
        for (size_t i = 0; i < v->n_search; i++)
                n = add_candidate(ret, n, name, v->search[i]);
        if (!first)
                n = add_candidate(ret, n, name, NULL);
        return n;
}

static void addrs_add(struct dns_addrs *a, int family, const void *addr) {
        if (a->n >= DNS_ADDRS_MAX)
                return;
        a->family[a->n] = family;
        memcpy(a->addr[a->n], addr, family == AF_INET ? 4 : 16);
        a->n++;
}

/* One hosts line "ADDR NAME [ALIAS...]": its address when a name matches. */
static void hosts_line(const char *p, const char *end, const char *name, struct dns_addrs *ret) {
        const char *hash = memchr(p, '#', (size_t)(end - p)), *w;
        char addr[INET6_ADDRSTRLEN];
        uint8_t buf[16];
        size_t n = next_word(&p, hash ? hash : end, &w), want = strlen(name);
        if (hash)
                end = hash;
        if (n == 0 || n >= sizeof(addr))
                return;
        memcpy(addr, w, n);
        addr[n] = '\0';
        int family = inet_pton(AF_INET, addr, buf) == 1    ? AF_INET
                     : inet_pton(AF_INET6, addr, buf) == 1 ? AF_INET6
                                                           : 0;
        if (!family)
                return;
        while ((n = next_word(&p, end, &w)) > 0)
                if (n == want && strncasecmp(w, name, n) == 0) {
                        addrs_add(ret, family, buf);
                        return;
                }
}

void hosts_lookup(const char *text, size_t len, const char *name, struct dns_addrs *ret) {
        struct dns_addrs a = { 0 };
        const char *end = text + len;
        for (const char *p = text; p < end && a.n < DNS_ADDRS_MAX;) {
                const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
                const char *nul = memchr(p, '\0', (size_t)(eol - p));
                hosts_line(p, nul ? nul : eol, name, &a);
                p = eol + 1;
        }
        *ret = a;
}

int dns_query_build(const char *name, uint16_t id, uint16_t qtype, uint8_t *buf, size_t size) {
        size_t len = strnlen(name, DNS_NAME_MAX + 2), at = DNS_HEADER;
        if (!dns_name_valid(name) || size < DNS_HEADER + len + 2 + 4 + 1)
                return -EINVAL;
        if (name[len - 1] == '.')
                len--;
        memset(buf, 0, DNS_HEADER);
        buf[0] = (uint8_t)(id >> 8);
        buf[1] = (uint8_t)id;
        buf[2] = 0x01; /* RD */
        buf[5] = 1;    /* QDCOUNT */
        for (size_t i = 0; i <= len;) {
                const char *dot = memchr(name + i, '.', len - i);
                size_t l = dot ? (size_t)(dot - (name + i)) : len - i;
                buf[at++] = (uint8_t)l;
                memcpy(buf + at, name + i, l);
                at += l;
                i += l + 1;
        }
        buf[at++] = 0;
        buf[at++] = (uint8_t)(qtype >> 8);
        buf[at++] = (uint8_t)qtype;
        buf[at++] = 0;
        buf[at++] = 1; /* IN */
        return (int)at;
}

/* Skips a (possibly compressed) name at *at; -EPROTO when it runs out of the message. */
static int skip_name(const uint8_t *msg, size_t len, size_t *at) {
        size_t p = *at;
        for (int hops = 0; hops < 128; hops++) {
                if (p >= len)
                        return -EPROTO;
                uint8_t l = msg[p];
                if (l == 0) {
                        *at = p + 1;
                        return 0;
                }
                if ((l & 0xc0) == 0xc0) {
                        if (p + 2 > len)
                                return -EPROTO;
                        *at = p + 2; /* the pointer ends the name here */
                        return 0;
                }
                if (l & 0xc0)
                        return -EPROTO;
                p += 1u + l;
        }
        return -EPROTO;
}

static uint16_t get16(const uint8_t *p) {
        return (uint16_t)((p[0] << 8) | p[1]);
}

int dns_answer_parse(const uint8_t *msg, size_t len, uint16_t id, uint16_t qtype, struct dns_addrs *ret) {
        if (len < DNS_HEADER || get16(msg) != id || !(msg[2] & 0x80) || (msg[2] & 0x78) != 0)
                return -EPROTO;
        unsigned rcode = msg[3] & 0x0f;
        if (rcode == 3)
                return -ENOENT;
        if (rcode != 0)
                return -EAGAIN;
        uint16_t qd = get16(msg + 4), an = get16(msg + 6);
        size_t at = DNS_HEADER;
        struct dns_addrs got = *ret; /* ret is written only when the whole answer parsed */
        if (qd != 1 || an > DNS_ANSWERS_MAX)
                return -EPROTO;
        if (skip_name(msg, len, &at) < 0 || at + 4 > len || get16(msg + at) != qtype)
                return -EPROTO;
        at += 4;
        for (uint16_t i = 0; i < an; i++) {
                if (skip_name(msg, len, &at) < 0 || at + 10 > len)
                        return -EPROTO;
                uint16_t type = get16(msg + at), cls = get16(msg + at + 2), rdlen = get16(msg + at + 8);
                at += 10;
                if (at + rdlen > len)
                        return -EPROTO;
                if (cls == 1 && type == qtype && type == DNS_TYPE_A && rdlen == 4)
                        addrs_add(&got, AF_INET, msg + at);
                else if (cls == 1 && type == qtype && type == DNS_TYPE_AAAA && rdlen == 16)
                        addrs_add(&got, AF_INET6, msg + at);
                at += rdlen;
        }
        *ret = got;
        return 0;
}
