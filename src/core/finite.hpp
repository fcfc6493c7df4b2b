// src/core/finite.hpp — the check that floating-point input holds no NaN or infinity, shared by
// the I/O module's readers and the out-of-core transforms' streamed reads.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "fastconv/types.hpp"

namespace fastconv::detail {

/// Throws invalid_argument naming the first NaN or infinity in `values`, which are elements
/// `first`, `first` + 1, ... of `source` (integers pass).
template <TransformElement T>
void reject_non_finite(std::span<const T> values, std::uint64_t first, std::string_view source);

}  // namespace fastconv::detail
