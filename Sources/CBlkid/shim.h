#pragma once
#include <blkid/blkid.h>
