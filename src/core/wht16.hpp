// src/core/wht16.hpp — the WHT of 16-bit floats (float16, bfloat16) on any backend.
#pragma once

#include <memory>

#include "core/backend_impl.hpp"

namespace fastconv::detail {

/// The WHT of 2^log2n 16-bit `word`s on `backend`: its native kernel (make_wht16) where it has
/// one, else its float kernel run on float copies of blocks of rows. Either way each value is
/// loaded exactly, transformed and scaled in float, and rounded once to nearest even on store.
std::unique_ptr<WhtKernel> make_wht16(const BackendImpl& backend, int log2n, Word16 word, Order order);

}  // namespace fastconv::detail
