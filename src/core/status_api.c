/* clb_set_last_error: the library's error slot for code built on the public API. */
#include "internal.h"

clb_status clb_set_last_error(clb_status s, const char *message)
{
    return clb__fail(s, "%s", message ? message : "");
}
