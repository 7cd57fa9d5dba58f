/* OpenCL contexts kept for reuse instead of released: see cl_park.h. */
#include "cl_park.h"

#include <pthread.h>
#include <string.h>

#define PARK_SLOTS 8

static pthread_mutex_t park_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    cl_device_id device;
    cl_context context;
} park[PARK_SLOTS];

bool clb__cl_park_wanted(const char *platform)
{
    return strstr(platform, "Portable Computing Language") != NULL || strstr(platform, "PoCL") ||
           strstr(platform, "pocl");
}

cl_context clb__cl_park_take(cl_device_id device)
{
    cl_context found = NULL;
    pthread_mutex_lock(&park_lock);
    for (int i = 0; i < PARK_SLOTS && !found; i++)
        if (park[i].context && park[i].device == device) {
            found = park[i].context;
            park[i].context = NULL;
            park[i].device = NULL;
        }
    pthread_mutex_unlock(&park_lock);
    return found;
}

bool clb__cl_park_put(cl_device_id device, cl_context context)
{
    bool parked = false;
    pthread_mutex_lock(&park_lock);
    for (int i = 0; i < PARK_SLOTS; i++)
        if (park[i].context && park[i].device == device) {
            pthread_mutex_unlock(&park_lock);
            return false; /* one per device */
        }
    for (int i = 0; i < PARK_SLOTS && !parked; i++)
        if (!park[i].context) {
            park[i].device = device;
            park[i].context = context;
            parked = true;
        }
    pthread_mutex_unlock(&park_lock);
    return parked;
}
