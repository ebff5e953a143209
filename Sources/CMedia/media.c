#include "media.h"
#include <stdio.h>
#include <libheif/heif.h>
#include <libavformat/avformat.h>

const char *pm_library_versions(void) {
    static char text[128];
    unsigned av = avformat_version();
    snprintf(text, sizeof text, "libheif %s, libavformat %u.%u.%u", heif_get_version(), av >> 16, (av >> 8) & 0xff, av & 0xff);
    return text;
}
