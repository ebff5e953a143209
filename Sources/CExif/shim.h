// libexif (Debian: libexif-dev), found through pkg-config.
#include <libexif/exif-data.h>
#include <libexif/exif-loader.h>
#include <libexif/exif-mnote-data.h>
