/* The version of the library actually loaded (Meson's project version). */
#include "clbroadcast.h"
#include "clbroadcast_version.h"

unsigned clb_version(void)
{
    return CLB_VERSION_MAJOR * 10000u + CLB_VERSION_MINOR * 100u + CLB_VERSION_PATCH;
}

const char *clb_version_string(void)
{
    return CLB_VERSION_STRING;
}
