#include "CPickerdShims.h"
