// FFmpeg's libavformat, libavcodec, libswscale and libavutil (Debian: libavformat-dev,
// libavcodec-dev, libswscale-dev, libavutil-dev), found through pkg-config.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/imgutils.h>
