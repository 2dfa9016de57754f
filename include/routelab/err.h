/* routelab/err.h: STAND-IN of branch py24 until lib24 (helper A) lands: the
 * public error convention is lib24's include/routelab/err.h; at the merge
 * lib24's file replaces this one.  Here it only forwards to core/err.h so
 * that model.h and mc.h compile in this branch. */
#ifndef ROUTELAB_ERR_STANDIN_H
#define ROUTELAB_ERR_STANDIN_H
#include "../../core/err.h"
#endif
