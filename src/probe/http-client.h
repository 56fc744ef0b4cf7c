#pragma once

/* The libcurl seam: the controller's http and metric probes fetch real
 * http(s) URLs through it. Only probe/http-client.c includes curl.h, and
 * only the controller links it: the agent and the engine client use the
 * built-in unix-socket client (engine/unix-http.h) instead. */

#include "engine/http-client.h"

/* Runs one request under the contract of engine/http-client.h, with curl's
 * explanation in reterr. A request with unix_socket set goes through
 * unix_http_run() instead: one client per transport, whoever calls. */
int http_request_run(const struct http_request *req, struct http_response *ret, struct mh_error *reterr);
