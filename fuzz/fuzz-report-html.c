/* Feeds arbitrary JSON, as a run's record, to the HTML report
 * (src/report/report-html.h): the evidence database is a file anyone with
 * write access may edit, and the page is opened in a browser.
 *
 * Checks: the page is written whole, is well-formed UTF-8, and no text of
 * the record opens a tag of its own (no "<script", no "<img", no quote
 * closing an attribute: every '<' the page holds is one of ours). */

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-html.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool valid_utf8(const unsigned char *p, size_t n) {
        for (size_t i = 0; i < n;) {
                size_t len = p[i] < 0x80                    ? 1
                             : p[i] >= 0xC2 && p[i] <= 0xDF ? 2
                             : p[i] >= 0xE0 && p[i] <= 0xEF ? 3
                             : p[i] >= 0xF0 && p[i] <= 0xF4 ? 4
                                                            : 0;
                if (len == 0 || i + len > n)
                        return false;
                for (size_t k = 1; k < len; k++)
                        if ((p[i + k] & 0xC0) != 0x80)
                                return false;
                i += len;
        }
        return true;
}

/* The tags the page writes; anything else after '<' came from the record. */
static bool our_tag(const char *p) {
        static const char *const tags[] = {
                "!DOCTYPE", "html",   "/html",   "head", "/head", "meta",   "title", "/title", "style",
                "/style",   "body",   "/body",   "h1",   "/h1",   "h2",     "/h2",   "p",      "/p",
                "span",     "/span",  "b",       "/b",   "table", "/table", "tr",    "/tr",    "th",
                "/th",      "td",     "/td",     "code", "/code", "pre",    "/pre",  "br",     "svg",
                "/svg",     "g",      "/g",      "line", "text",  "/text",  "rect",  "/rect",  "path",
                "/path",    "circle", "/circle", NULL
        };
        for (const char *const *t = tags; *t; t++)
                if (strncmp(p + 1, *t, strlen(*t)) == 0 && strchr(" >/", p[1 + strlen(*t)]))
                        return true;
        return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        json_t *rec = json_loadb((const char *)data, size, 0, NULL);
        if (!rec)
                return 0;
        char *page = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&page, &len);
        assert(f);
        struct mh_error e = { 0 };
        int r = report_html_write(f, rec, &e);
        fclose(f);
        if (r == 0) {
                assert(strstr(page, "</html>\n"));
                assert(valid_utf8((const unsigned char *)page, len));
                for (const char *p = strchr(page, '<'); p; p = strchr(p + 1, '<'))
                        assert(our_tag(p));
        }
        free(page);
        json_decref(rec);
        return 0;
}
