#include "http-client.h"

#include <assert.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "engine/unix-http.h"

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_result = CURLE_FAILED_INIT;

/* curl_global_init() is not thread-safe and must run once per process. */
static void global_init(void) {
        global_result = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static inline void curl_easy_cleanupp(CURL **h) {
        if (*h)
                curl_easy_cleanup(*h);
}

static inline void curl_slist_free_allp(struct curl_slist **l) {
        curl_slist_free_all(*l);
}

struct body_sink {
        struct strbuf buf;
        bool truncated, oom;
};

static void body_sink_done(struct body_sink *s) {
        strbuf_done(&s->buf);
}

/* Keeps at most buf.max bytes; past that, returning short makes curl abort
 * the transfer, so an endless body costs nothing more than the cap. */
static size_t on_body(char *data, size_t size, size_t n, void *userdata) {
        struct body_sink *s = userdata;
        size_t len = size * n, take = MIN(len, s->buf.max - s->buf.len);

        if (strbuf_append(&s->buf, data, take) < 0) {
                s->oom = true;
                return 0;
        }
        if (take < len) {
                s->truncated = true;
                return 0;
        }
        return len;
}

/* HEAD has no body, a body or POST makes a POST; any other method is sent
 * as a custom request line on top of the natural one. */
static int set_method(CURL *h, const struct http_request *req) {
        const char *natural = "GET";
        int bad = 0;

        if (streq(req->method, "HEAD")) {
                natural = "HEAD";
                bad |= curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
        } else if (req->body || streq(req->method, "POST")) {
                const char *body = req->body ? req->body : "";
                natural = "POST";
                bad |= curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
                bad |= curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        }
        if (!streq(natural, req->method))
                bad |= curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
        return bad;
}

static int set_options(
        CURL *h, const struct http_request *req, struct curl_slist *headers, struct body_sink *sink,
        char *errbuf) {
        int64_t timeout = req->timeout_ms > 0 ? req->timeout_ms : HTTP_TIMEOUT_DEFAULT_MS;
        int bad = 0;

        bad |= curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
        bad |= curl_easy_setopt(h, CURLOPT_URL, req->url);
        bad |= curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        bad |= curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)timeout);
#if LIBCURL_VERSION_NUM >= 0x075500
        bad |= curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
        bad |= curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
        bad |= curl_easy_setopt(h, CURLOPT_USERAGENT, "mayhem/" MAYHEM_VERSION);
        bad |= curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
        bad |= curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
        bad |= curl_easy_setopt(h, CURLOPT_WRITEDATA, sink);
        return bad | set_method(h, req);
}

static int errno_of(CURL *h, CURLcode c) {
        static const struct {
                CURLcode code;
                int err;
        } map[] = {
                { CURLE_OPERATION_TIMEDOUT, ETIMEDOUT },
                { CURLE_WEIRD_SERVER_REPLY, EPROTO },
                { CURLE_UNSUPPORTED_PROTOCOL, EPROTO },
                { CURLE_PARTIAL_FILE, EPROTO },
                { CURLE_GOT_NOTHING, EPROTO },
                { CURLE_HTTP2, EPROTO },
                { CURLE_HTTP2_STREAM, EPROTO },
                { CURLE_BAD_CONTENT_ENCODING, EPROTO },
                { CURLE_RECV_ERROR, ECONNRESET },
                { CURLE_SEND_ERROR, ECONNRESET },
                { CURLE_COULDNT_RESOLVE_HOST, EHOSTUNREACH },
                { CURLE_URL_MALFORMAT, EINVAL },
                { CURLE_OUT_OF_MEMORY, ENOMEM },
        };
        long os = 0;

        if (c == CURLE_COULDNT_CONNECT) {
                (void)curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os);
                return os > 0 ? -(int)os : -ECONNREFUSED;
        }
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (map[i].code == c)
                        return -map[i].err;
        return -EIO;
}

static int transport_error(
        CURL *h, CURLcode c, const struct http_request *req, const char *errbuf, struct mh_error *reterr) {
        int r = errno_of(h, c);
        const char *why = errbuf[0] ? errbuf : curl_easy_strerror(c);
        char url[HTTP_SHOWN_URL_MAX];

        http_one_line(url, sizeof(url), req->url, strlen(req->url));
        return mh_error_set(
                reterr, r, MH_EXIT_GENERAL_FAILURE, "http_transport", "%s %s: %s", req->method, url, why);
}

int http_request_run(const struct http_request *req, struct http_response *ret, struct mh_error *reterr) {
        _cleanup_(curl_easy_cleanupp) CURL *h = NULL;
        _cleanup_(curl_slist_free_allp) struct curl_slist *headers = NULL;
        _cleanup_(body_sink_done) struct body_sink sink = {
                .buf = STRBUF_INIT(req->max_body ? req->max_body : HTTP_BODY_MAX_DEFAULT)
        };
        char errbuf[CURL_ERROR_SIZE] = "";
        curl_off_t total_us = 0;
        long status = 0;

        assert(req && req->method && req->url && ret);
        int r = http_request_check(req, reterr);
        if (r < 0)
                return r;
        if (req->unix_socket)
                return unix_http_run(req, ret, reterr);
        (void)pthread_once(&global_once, global_init);
        if (global_result != CURLE_OK)
                return mh_error_set(
                        reterr, -EIO, MH_EXIT_GENERAL_FAILURE, "http_transport",
                        "cannot initialise libcurl: %s", curl_easy_strerror(global_result));
        h = curl_easy_init();
        /* No "Expect: 100-continue" round trip for larger bodies. */
        headers = curl_slist_append(NULL, "Expect:");
        struct curl_slist *more = headers && req->body
                                          ? curl_slist_append(headers, "Content-Type: application/json")
                                          : headers;
        if (!h || !more || set_options(h, req, headers, &sink, errbuf) != 0)
                return mh_error_set(
                        reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "cannot set up an HTTP request");

        CURLcode c = curl_easy_perform(h);
        if (sink.oom)
                c = CURLE_OUT_OF_MEMORY;
        else if (c == CURLE_WRITE_ERROR && sink.truncated)
                c = CURLE_OK;
        if (c != CURLE_OK)
                return transport_error(h, c, req, errbuf, reterr);
        (void)curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        (void)curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total_us);
        size_t len = sink.buf.len;
        char *body = strbuf_steal(&sink.buf);
        if (!body)
                return mh_error_set(reterr, -ENOMEM, MH_EXIT_GENERAL_FAILURE, "oom", "out of memory");
        *ret = (struct http_response){
                .status = status,
                .body = body,
                .body_len = len,
                .total_ms = (double)total_us / 1000.0,
                .truncated = sink.truncated,
        };
        return 0;
}
