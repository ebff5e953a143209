// libwebp's decoder (Debian: libwebp-dev), found through pkg-config.
#include <webp/decode.h>
