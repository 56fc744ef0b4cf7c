#pragma once

/* Is a string what its kind says? Each check reads the whole string, returns
 * 0 when it is, or -EINVAL with a short reason in why ("label 'a b' holds ' '")
 * that a caller puts after the value in a one-line message. No I/O. */

#include <stddef.h>

#define DNS_NAME_MAX  253 /* RFC 1035 §2.3.4, without the root's trailing dot */
#define DNS_LABEL_MAX 63
#define TEXT_PATH_MAX 4096 /* PATH_MAX */

/* A DNS name: dot-separated labels of 1..63 letters, digits and hyphens, no
 * label starting or ending with a hyphen, 253 characters in all (one
 * trailing dot, the root, is allowed and not counted). */
int dns_name_check(const char *s, char *why, size_t size);

/* An absolute path with no ".." component and no control character. */
int path_check_absolute(const char *s, char *why, size_t size);

/* http:// or https://, a host, and where a port is written, 1..65535. */
int url_check_http(const char *s, char *why, size_t size);
