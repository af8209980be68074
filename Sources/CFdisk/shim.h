#pragma once
#include <libfdisk/libfdisk.h>
