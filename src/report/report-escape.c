/* Text from a run's record (drill names, details, params) put into XML and
 * Markdown: nothing in it may end an attribute, open an element, or make
 * the file unparsable (report-internal.h). */

#include "report-internal.h"

#include <stdint.h>
#include <string.h>

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* The length of the valid UTF-8 sequence at s (1..4) and its code point, or
 * 0 when the bytes are no shortest-form sequence of a scalar value. */
static size_t utf8_decode(const unsigned char *s, uint32_t *ret) {
        static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
        size_t n = s[0] < 0x80             ? 1
                   : (s[0] & 0xe0) == 0xc0 ? 2
                   : (s[0] & 0xf0) == 0xe0 ? 3
                   : (s[0] & 0xf8) == 0xf0 ? 4
                                           : 0;
        if (n == 0)
                return 0;
        uint32_t cp = n == 1 ? s[0] : s[0] & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                cp = cp << 6 | (s[i] & 0x3f);
        }
        if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        *ret = cp;
        return n;
}

static bool xml_char(uint32_t cp) {
        return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
               (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
}

static const char *xml_entity(uint32_t cp, bool attr) {
        switch (cp) {
        case '&': return "&amp;";
        case '<': return "&lt;";
        case '>': return "&gt;";
        case '"': return attr ? "&quot;" : NULL;
        case '\'': return attr ? "&apos;" : NULL;
        case '\t': return attr ? "&#9;" : NULL;
        case '\n': return attr ? "&#10;" : NULL;
        case '\r': return "&#13;";
        default: return NULL;
        }
}

int xml_escape(struct strbuf *b, const char *s, bool attr) {
        const unsigned char *p = (const unsigned char *)s;
        int r = 0;
        while (p && *p && r >= 0) {
                uint32_t cp = 0;
                size_t n = utf8_decode(p, &cp);
                const char *entity = n ? xml_entity(cp, attr) : NULL;
                if (n == 0 || !xml_char(cp))
                        r = strbuf_puts(b, REPLACEMENT);
                else if (entity)
                        r = strbuf_puts(b, entity);
                else
                        r = strbuf_append(b, (const char *)p, n);
                p += n ? n : 1;
        }
        return r;
}

int md_escape(struct strbuf *b, const char *s) {
        const unsigned char *p = (const unsigned char *)s;
        int r = 0;
        if (!s)
                return strbuf_putc(b, '-');
        for (; *p && r >= 0; p++) {
                if (*p < 0x20 || *p == 0x7f)
                        r = strbuf_putc(b, ' ');
                else if (strchr("\\`*_[]<>|#!&", *p))
                        r = strbuf_printf(b, "\\%c", *p);
                else
                        r = strbuf_putc(b, (char)*p);
        }
        return r;
}
