/* fuzz.h: what the libFuzzer harnesses share.
 *
 * A reader that takes a path gets the input as a file in /dev/shm (memory,
 * no disk wear; $TMPDIR or /tmp when there is none), one per process and
 * target, rewritten for each input and removed at exit.  The name ends in
 * FUZZ_SUFFIX, which the harness defines before including this file, since
 * some readers choose the format by the name (".bin": token file).
 * Harnesses call only library functions that return an rl_status: a
 * harness that exits would look to libFuzzer like a crash. */
#ifndef RL_FUZZ_H
#define RL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FUZZ_SUFFIX
#define FUZZ_SUFFIX ".in"
#endif

/* This process's input file for the target (the same name every call). */
static inline void fuzz_path(char *buf, size_t n)
{
    struct stat st;
    const char *dir = "/dev/shm";
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK) != 0)
        dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(buf, n, "%s/routelab-fuzz-%ld%s", dir, (long)getpid(), FUZZ_SUFFIX);
}

/* Write data to this process's input file; its path into path.  0, or -1
 * when the file cannot be written (the input is then skipped). */
static inline int fuzz_write(const void *data, size_t size, char *path, size_t n)
{
    fuzz_path(path, n);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = size && fwrite(data, 1, size, f) != size;
    return (fclose(f) != 0 || bad) ? -1 : 0;
}

static inline void fuzz_cleanup(void)
{
    char p[512];
    fuzz_path(p, sizeof p);
    unlink(p);
}

/* The input as a NUL-terminated string (malloc'ed; a NUL inside ends it). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = 0;
    }
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Remove the input file when libFuzzer exits normally. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    atexit(fuzz_cleanup);
    return 0;
}

#endif
