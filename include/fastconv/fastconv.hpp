// fastconv/fastconv.hpp — everything in one include.
#pragma once

#include "fastconv/backend.hpp"
#include "fastconv/boolean.hpp"
#include "fastconv/conv2d.hpp"
#include "fastconv/dyadic.hpp"
#include "fastconv/error.hpp"
#include "fastconv/memory.hpp"
#include "fastconv/out_of_core.hpp"
#include "fastconv/sbox.hpp"
#include "fastconv/types.hpp"
#include "fastconv/wht.hpp"
