#pragma once

/* The JSON-RPC 2.0 envelope of the agent protocol (mayhem-spec section 7):
 * parsing requests and responses, and writing them as one compact line each.
 * Method dispatch lives elsewhere; this file knows only the two notification
 * methods, because a request without an id is valid only for them. */

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum rpc_code {
        RPC_PARSE_ERROR = -32700,
        RPC_INVALID_REQUEST = -32600,
        RPC_METHOD_NOT_FOUND = -32601,
        RPC_INVALID_PARAMS = -32602,
        RPC_INTERNAL_ERROR = -32603,
        RPC_TASK_FAILED = -32000,
        RPC_SAFETY_REFUSED = -32001,
        RPC_TARGET_MISSING = -32002, /* the container or process the request names does not exist */
        RPC_TARGET_CHANGED = -32003, /* it is not the one the controller resolved (restarted, pid reused) */
        RPC_TARGET_FORBIDDEN = -32004, /* a host process the agent never touches: init, a kernel thread,
                                        * the agent itself, its ancestors (the controller) or children */
};

struct rpc_request {
        json_t *id;         /* string or integer; NULL for a notification */
        const char *method; /* never NULL after a successful parse */
        json_t *params;     /* object, never NULL (empty object when absent) */
        json_t *root;       /* owns the above */
};

/* "event.emit", "log.emit": accepted without an id and without correlation
 * context. */
bool rpc_method_is_notification(const char *method);

/* Parses one frame (need not be NUL-terminated). Returns 0 and fills *ret
 * (release with rpc_request_done()), or returns an rpc_code (< 0) and sets
 * *ret_error_id to a new reference to the request's id when it could be read,
 * else to JSON null (ret_error_id may be NULL), and writes a one-line message
 * to msg. On success *ret_error_id is set to NULL. Any bytes are safe.
 *
 * Rules, checked in this order:
 *   -32700 "bad json: ..."                    not JSON, or a duplicate key;
 *   -32600 "request must be a JSON object";
 *   -32600 "id must be a string or an integer" (null, float, bool, array, object);
 *   -32600 "jsonrpc must be \"2.0\"";
 *   -32600 "method must be a string";
 *   -32602 "params must be an object, not an array";
 *   -32600 "params must be an object"         (null, string, number, bool);
 *   -32600 "missing id"                       no id and not a notification method;
 *   -32602 "params missing correlation context: run_id" (then agent_id): each
 *          must be a non-empty string, except for the notification methods
 *          (with or without an id). */
int rpc_request_parse(
        const char *line, size_t len, struct rpc_request *ret, json_t **ret_error_id, char *msg,
        size_t msg_size);
void rpc_request_done(struct rpc_request *r);

/* Serialised messages: compact, one line, terminated by "\n", malloc()ed; NULL
 * on ENOMEM (and for rpc_request_line(), for a method that is not UTF-8).
 * Null fields are omitted, as the reference does: an id that is NULL or JSON
 * null, a NULL or null result, NULL or null error data. The id is copied;
 * result, data and params are stolen, also on failure. A message that is not
 * valid UTF-8 has its bad bytes replaced by '?'. */
char *rpc_result_line(const json_t *id, json_t *result);
char *rpc_error_line(const json_t *id, int code, const char *message, json_t *data);
char *rpc_request_line(json_int_t id, const char *method, json_t *params);

/* Parses a response frame (client side). Returns 0 for a well-formed
 * response, with *ret_id its id (-1 when the agent could not read ours and
 * omitted it) and either *ret_code 0 and *ret_result a new reference (JSON
 * null when the agent omitted a null result), or *ret_code the error's code
 * (never 0), *ret_result NULL and the error's message in msg. Output
 * parameters are written only then. Returns -ENOMSG for a request or
 * notification (a frame with "method"), -EBADMSG for anything else that is
 * not a response (msg says why), -ENOMEM. */
int rpc_response_parse(
        const char *line, size_t len, json_int_t *ret_id, json_t **ret_result, int *ret_code, char *msg,
        size_t msg_size);
