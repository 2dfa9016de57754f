/* routelab/family.h: STAND-IN of branch py24 until lib24 (helper A) lands:
 * the public family header (rl_family_named, rl_family_set, rl_sample, ...)
 * is lib24's include/routelab/family.h; at the merge lib24's file replaces
 * this one.  Here it only forwards to sampling/family.h so that mc.h
 * compiles in this branch. */
#ifndef ROUTELAB_FAMILY_STANDIN_H
#define ROUTELAB_FAMILY_STANDIN_H
#include "../../sampling/family.h"
#endif
