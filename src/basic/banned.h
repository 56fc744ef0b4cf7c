#pragma once

/* Included by every translation unit of ours (meson passes -include): calls
 * that cannot be bounded or that run a shell do not compile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma GCC poison system popen sprintf vsprintf strcpy strcat gets atoi atol atoll
