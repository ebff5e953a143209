// libheif (Debian: libheif-dev), found through pkg-config.
#include <libheif/heif.h>
