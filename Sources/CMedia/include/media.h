// CMedia: small C wrappers over libexif, libheif and FFmpeg for pickerd's importer.
#ifndef PICKERD_CMEDIA_H
#define PICKERD_CMEDIA_H

#include <stddef.h>
#include <stdint.h>

/// The libraries' versions, for logs ("libexif … libheif 1.15.1, libavformat 59.27.100").
const char *pm_library_versions(void);

#endif
