#pragma once

/* The engine's HTTP/1.1 client over a unix socket, built in so that the
 * agent does not link libcurl and its dependency tree. One connection per
 * call ("Connection: close"), so calls share nothing and many threads may
 * call at once; no proxies, redirects, TLS or compression: the peer is a
 * local socket file. The reply is read by http-parser.h, whose limits
 * (line, head, header count) apply. docs/internals/engine-http.md has the
 * details. */

#include "http-client.h"

/* Runs req under the contract of http-client.h. req->unix_socket must be
 * set and req->url be http://HOST/PATH?QUERY: HOST goes into the Host
 * header, /PATH?QUERY into the request line (a fragment is dropped). The
 * whole exchange, connect included, is bounded by timeout_ms. Besides the
 * codes listed there: -EINVAL also for a request without a unix socket, an
 * https URL, or a URL with bytes a request line cannot carry unescaped
 * (blanks, control characters, non-ASCII); -ECONNRESET when the engine reset
 * the connection before its reply was complete. */
int unix_http_run(const struct http_request *req, struct http_response *ret, struct mh_error *reterr);
