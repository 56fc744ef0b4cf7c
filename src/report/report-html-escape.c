/* Text from the record into the page: every byte escaped or replaced, so a
 * drill name, a detail or a param can hold <script>, quotes or broken UTF-8
 * and stay text. */

#include "report-html-internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD */

/* The length of the well-formed UTF-8 sequence at s (1 to 4), or 0 when it is
 * not one (overlong forms, surrogates and code points past U+10FFFF are not). */
static size_t utf8_len(const unsigned char *s, size_t left) {
        size_t n;
        uint32_t cp;
        if (s[0] < 0x80)
                return 1;
        if (s[0] >= 0xC2 && s[0] <= 0xDF)
                n = 2, cp = s[0] & 0x1F;
        else if (s[0] >= 0xE0 && s[0] <= 0xEF)
                n = 3, cp = s[0] & 0x0F;
        else if (s[0] >= 0xF0 && s[0] <= 0xF4)
                n = 4, cp = s[0] & 0x07;
        else
                return 0;
        if (n > left)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xC0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3F);
        }
        if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
                return 0;
        return n;
}

static const char *entity(unsigned char c) {
        switch (c) {
        case '&': return "&amp;";
        case '<': return "&lt;";
        case '>': return "&gt;";
        case '"': return "&quot;";
        case '\'': return "&#39;";
        default: return NULL;
        }
}

void html_escape(FILE *out, const char *s, size_t max) {
        if (!s)
                return;
        const unsigned char *p = (const unsigned char *)s;
        size_t left = strlen(s), done = 0;
        while (left > 0 && done < max) {
                size_t n = utf8_len(p, left);
                const char *e = n == 1 ? entity(*p) : NULL;
                if (e)
                        fputs(e, out);
                else if (n == 0 || (n == 1 && ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7F)))
                        fputs(REPLACEMENT, out);
                else
                        fwrite(p, 1, n, out);
                n = n ? n : 1;
                p += n, left -= n, done += n;
        }
        if (left > 0)
                fputs("\xE2\x80\xA6", out); /* … */
}

void html_json(FILE *out, const json_t *j) {
        if (!j) {
                fputs("null", out);
                return;
        }
        char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
        html_escape(out, text ? text : "(unprintable)", SIZE_MAX);
        free(text);
}

const char *html_str(const json_t *o, const char *key) {
        return json_string_value(json_object_get(o, key));
}

double html_num(const json_t *o, const char *key) {
        const json_t *v = json_object_get(o, key);
        return json_is_number(v) ? json_number_value(v) : NAN;
}
