#pragma once

#include <stdbool.h>

#include "basic/strbuf.h"

/* Appends s as XML character data (attr: as an attribute value, quotes and
 * whitespace too): & < > " ' as entities; bytes that are not UTF-8, and
 * code points XML 1.0 forbids (control characters, U+FFFE, U+FFFF,
 * surrogates), as U+FFFD. NULL appends nothing. */
int xml_escape(struct strbuf *b, const char *s, bool attr);

/* Appends s for Markdown text: punctuation that would start markup
 * (\ ` * _ [ ] < > | # !) backslash-escaped, control characters and line
 * breaks as one space. NULL appends "-". */
int md_escape(struct strbuf *b, const char *s);
