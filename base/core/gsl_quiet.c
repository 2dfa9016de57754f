/* gsl_quiet.c: GSL's error handler off for the library (err.h).  GSL's
 * default handler aborts the process on a domain error, an underflow or a
 * failed iteration; the library promises never to end its caller, so every
 * library function that calls GSL first calls rl_gsl_quiet and reads each
 * GSL status itself (docs/library-robustness.md#closed-forms-never-exit).  The handler is GSL's
 * process-wide setting: a caller that installs a handler of its own after this call has
 * it called from the library's GSL calls too. */
#include "err.h"

#include <gsl/gsl_errno.h>

void rl_gsl_quiet(void)
{
    /* the same store each time, from any thread: no race worth a lock */
    gsl_set_error_handler_off();
}
