#pragma once
#include <libmount/libmount.h>
