#pragma once

/* What the two HTTP clients share: the request and response types, their
 * limits and error contract, and two helpers for text that goes into a URL
 * or out of a reply. The engine talks to dockerd / podman over a unix socket
 * with the built-in client of unix-http.h (no libcurl: the agent links it);
 * the controller's http(s) probes use probe/http-client.h (the libcurl
 * seam). Both are safe to call from several threads at once: every call has
 * its own connection. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "basic/error.h"
#include "basic/strbuf.h"

#define HTTP_TIMEOUT_DEFAULT_MS   30000
#define HTTP_BODY_MAX_DEFAULT     (1u << 20)
#define HTTP_UNIX_SOCKET_PATH_MAX 108 /* sizeof(sockaddr_un.sun_path), NUL included */
#define HTTP_METHOD_MAX           16
#define HTTP_SHOWN_URL_MAX        256 /* bytes of a URL or method quoted in a message */

struct http_request {
        const char *method;      /* "GET", "POST", "HEAD", "PUT", "DELETE", ... */
        const char *url;         /* "http://localhost/v1.41/containers/json" or a real http(s) URL */
        const char *unix_socket; /* NULL for TCP; when set, proxies from the environment are never used */
        const char *body;        /* JSON (sent as application/json) or NULL */
        /* The unix client only (the engine's image build sends a tar): body's
         * bytes (0: strlen(body)) and its type (NULL: application/json). */
        size_t body_len;
        const char *content_type;
        int64_t timeout_ms; /* whole exchange; <= 0: HTTP_TIMEOUT_DEFAULT_MS */
        size_t max_body;    /* response bytes kept; 0: HTTP_BODY_MAX_DEFAULT */
};

struct http_response {
        long status; /* as the server sent it; redirects are not followed */
        char *body;  /* NUL-terminated, never NULL after success */
        size_t body_len;
        double total_ms;
        bool truncated; /* the server sent more than max_body: body holds the first max_body bytes */
};

/* The contract of both clients (unix_http_run(), http_request_run()): one
 * request, any HTTP status is a success (the caller judges it). A body over
 * max_body is not an error: reading stops at the cap, the connection is
 * dropped and ret->truncated is set, so a probe still sees the status and a
 * caller that needs the whole body fails with -EFBIG itself.
 *
 * Transport failures return, with the explanation in reterr (exit class
 * GENERAL_FAILURE, id "http_transport"):
 *   -ENOENT / -ECONNREFUSED / -EACCES  connecting failed (the OS error of connect())
 *   -ETIMEDOUT                         timeout_ms passed
 *   -EPROTO                            the peer did not speak HTTP (bad status line,
 *                                      closed mid-body, empty reply)
 *   -EHOSTUNREACH                      the host name did not resolve
 *   -EINVAL                            bad URL or unsupported scheme (only http and https)
 *   -ENOMEM, -EIO                      out of memory; anything else (TLS, ...)
 * ret is written only on success; release it with http_response_done(). */

/* The checks both clients make before sending anything: an upper-case method
 * token, an http:// or https:// URL, a unix socket path that fits. -EINVAL
 * or -ENAMETOOLONG, id "http_request". */
int http_request_check(const struct http_request *req, struct mh_error *reterr);

void http_response_done(struct http_response *r);

/* Copies at most len bytes of src (less at a NUL) into dst as one printable
 * line, for quoting what a peer or a caller sent in an error message:
 * control characters become single spaces, the ends are trimmed. */
void http_one_line(char *dst, size_t size, const char *src, size_t len);

/* Appends s percent-encoded (RFC 3986: everything but unreserved characters)
 * for a query parameter. -E2BIG past out's limit. */
int http_url_escape(struct strbuf *out, const char *s);
