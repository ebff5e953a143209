/* libprotobuf-c's runtime (ProtobufCMessage, pack/unpack). Debian: libprotobuf-c-dev. */
#include <protobuf-c/protobuf-c.h>
