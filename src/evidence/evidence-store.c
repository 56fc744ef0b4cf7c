/* The evidence file under a run: SQLite keeps writing to a file that was
 * deleted or renamed over, and every commit would succeed into a journal
 * nobody will read again. So the file opened is remembered, and a commit
 * hook refuses every commit once the path names another file or none: the
 * write fails (-ESTALE) and the run stops and undoes. Also: whether a run
 * may write at all, asked before it touches anything. */

#include "evidence.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "evidence-internal.h"

/* With the connection's mutex held: no sqlite3_* call here. Nonzero turns
 * the COMMIT into a ROLLBACK (SQLITE_CONSTRAINT_COMMITHOOK). */
static int refuse_moved_store(void *arg) {
        struct evidence *ev = arg;
        struct stat st;
        if (stat(ev->path, &st) < 0) {
                snprintf(
                        ev->commit_refused, sizeof(ev->commit_refused),
                        "the evidence database '%s' was deleted while it was open (%s)", ev->path,
                        strerror(errno));
                return 1;
        }
        if (st.st_dev != ev->dev || st.st_ino != ev->ino) {
                snprintf(
                        ev->commit_refused, sizeof(ev->commit_refused),
                        "the evidence database '%s' was replaced while it was open (inode %llu, was %llu)",
                        ev->path, (unsigned long long)st.st_ino, (unsigned long long)ev->ino);
                return 1;
        }
        return 0;
}

int evidence_store_watch(struct evidence *ev, const char *path, struct mh_error *reterr) {
        struct stat st;
        if (strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0)
                return 0; /* no file of its own, or a URI we do not resolve */
        ev->path = realpath(path, NULL);
        if (!ev->path || stat(ev->path, &st) < 0)
                return mh_error_set(
                        reterr, -errno, MH_EXIT_CONFIG_ERROR, "evidence_open",
                        "opening the evidence database: '%s' is not there once opened: %s", path,
                        strerror(errno));
        ev->dev = st.st_dev;
        ev->ino = st.st_ino;
        sqlite3_commit_hook(ev->db, refuse_moved_store, ev);
        return 0;
}

int evidence_writable(struct evidence *ev, struct mh_error *reterr) {
        static const char op[] = "checking the evidence database is writable";
        EVIDENCE_LOCK_SCOPE(ev);
        const char *path = ev->path ? ev->path : sqlite3_db_filename(ev->db, "main");
        if (sqlite3_db_readonly(ev->db, "main") == 1)
                return mh_error_set(
                        reterr, -EROFS, MH_EXIT_CONFIG_ERROR, "evidence_read_only",
                        "the evidence database '%s' cannot be written (read-only file or directory): a run "
                        "journals every fault before it touches one",
                        path);
        _cleanup_(evidence_txn_rollbackp) struct evidence_txn txn = { NULL };
        int r = evidence_begin(ev, &txn, op, reterr);
        if (r == -EBUSY)
                return mh_error_set(
                        reterr, r, MH_EXIT_CONFIG_ERROR, "evidence_locked",
                        "the evidence database '%s' is locked by another process (waited 5 s for its write "
                        "lock)",
                        path);
        if (r < 0 && reterr)
                reterr->exit = MH_EXIT_CONFIG_ERROR;
        return r < 0 ? r : 0;
}
