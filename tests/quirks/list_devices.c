/* Prints one line per OpenCL device: "<platform>\t<driver>\t<quirks>", the
 * quirks being the library's table's verdict (clb_device_info.quirks), for
 * check_quirks.py to hold against the reproducers. */
#include <clbroadcast.h>
#include <stdio.h>

int main(void)
{
    int count = 0;
    if (clb_device_count(&count) != CLB_OK) return fprintf(stderr, "%s\n", clb_last_error()), 2;
    for (int i = 0; i < count; i++) {
        clb_device_info d;
        if (clb_device_get_info(i, &d) != CLB_OK) return fprintf(stderr, "%s\n", clb_last_error()), 2;
        printf("%s\t%s\t%s\n", d.platform, d.driver_version, d.quirks);
    }
    return 0;
}
