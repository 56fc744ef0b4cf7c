#include "http-client.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void http_one_line(char *dst, size_t size, const char *src, size_t len) {
        size_t o = 0;

        for (size_t i = 0; i < len && src[i] && o + 1 < size; i++) {
                unsigned char ch = (unsigned char)src[i];
                if (ch >= 0x20 && ch != 0x7f)
                        dst[o++] = (char)ch;
                else if (o > 0 && dst[o - 1] != ' ')
                        dst[o++] = ' ';
        }
        while (o > 0 && dst[o - 1] == ' ')
                o--;
        dst[o] = '\0';
}

int http_request_check(const struct http_request *req, struct mh_error *reterr) {
        size_t n = strspn(req->method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        char shown[HTTP_SHOWN_URL_MAX];

        if (n == 0 || n > HTTP_METHOD_MAX || req->method[n] != '\0') {
                http_one_line(shown, sizeof(shown), req->method, strlen(req->method));
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "http_request",
                        "invalid HTTP method '%s': expected an upper-case token", shown);
        }
        if (strncasecmp(req->url, "http://", 7) != 0 && strncasecmp(req->url, "https://", 8) != 0) {
                http_one_line(shown, sizeof(shown), req->url, strlen(req->url));
                return mh_error_set(
                        reterr, -EINVAL, MH_EXIT_GENERAL_FAILURE, "http_request",
                        "unsupported URL '%s': only http:// and https:// are", shown);
        }
        if (req->unix_socket && strlen(req->unix_socket) >= HTTP_UNIX_SOCKET_PATH_MAX)
                return mh_error_set(
                        reterr, -ENAMETOOLONG, MH_EXIT_GENERAL_FAILURE, "http_request",
                        "unix socket path '%.200s...' is longer than %d bytes", req->unix_socket,
                        HTTP_UNIX_SOCKET_PATH_MAX - 1);
        return 0;
}

void http_response_done(struct http_response *r) {
        if (!r)
                return;
        free(r->body);
        *r = (struct http_response){ 0 };
}

int http_url_escape(struct strbuf *out, const char *s) {
        static const char hex[] = "0123456789ABCDEF";

        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                             (*p >= '0' && *p <= '9') || strchr("-._~", *p);
                char enc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
                int r = plain ? strbuf_putc(out, (char)*p) : strbuf_append(out, enc, sizeof(enc));
                if (r < 0)
                        return r;
        }
        return 0;
}
