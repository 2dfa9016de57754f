/* routelab/version.h: the library's ABI version (docs/library.md#library-abi).
 *
 * libroutelab.so.MAJOR.MINOR carries the soname libroutelab.so.MAJOR: MAJOR
 * changes when a call or a struct of these headers changes incompatibly,
 * MINOR when calls are added.  The Makefile reads both numbers from here
 * (the one place they are written). */
#ifndef ROUTELAB_VERSION_H
#define ROUTELAB_VERSION_H

#define ROUTELAB_ABI_MAJOR 1
#define ROUTELAB_ABI_MINOR 3

/* The library's version as text, "MAJOR.MINOR" of the library actually
 * loaded (compare with the macros above to detect a header/library mismatch). */
const char *routelab_version(void);

#endif
