/* version.c: routelab_version() (<routelab/version.h>, docs/library.md#library-abi). */
#include "../../api/include/routelab/version.h"

#define RL_STR_(x) #x
#define RL_STR(x) RL_STR_(x)

const char *routelab_version(void)
{
    return RL_STR(ROUTELAB_ABI_MAJOR) "." RL_STR(ROUTELAB_ABI_MINOR);
}
