// libjxl's decoder (Debian: libjxl-dev), found through pkg-config. Used without a parallel runner:
// it decodes on the caller's thread, so pickerd-reader's confinement sees no thread pool.
#include <jxl/decode.h>
