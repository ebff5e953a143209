// libsystemd's sd-bus (Debian: libsystemd-dev), found through pkg-config. Only CBus includes it;
// Swift code never sees sd-bus's types.
#include <systemd/sd-bus.h>
