// Well-known S-boxes, built from their definitions rather than typed in.
#include <array>

#include "fastconv/sbox.hpp"

namespace fastconv {
namespace {

/// Multiplication in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (AES's field).
std::uint32_t gf256_multiply(std::uint32_t a, std::uint32_t b) {
  std::uint32_t product = 0;
  for (; b != 0; b >>= 1) {
    if (b & 1) product ^= a;
    a = (a << 1) ^ ((a & 0x80) ? 0x11B : 0);
  }
  return product;
}

/// FIPS 197, section 5.1.1: the multiplicative inverse (0 for 0), then the affine map
/// b ⊕ rotl(b, 1) ⊕ rotl(b, 2) ⊕ rotl(b, 3) ⊕ rotl(b, 4) ⊕ 0x63.
SBox aes() {
  std::vector<std::uint32_t> lut(256);
  for (std::uint32_t x = 0; x < 256; ++x) {
    std::uint32_t inverse = 0;
    for (std::uint32_t y = 1; y < 256 && x != 0; ++y)
      if (gf256_multiply(x, y) == 1) inverse = y;
    const auto rotl = [](std::uint32_t b, int k) { return ((b << k) | (b >> (8 - k))) & 0xFF; };
    lut[x] = inverse ^ rotl(inverse, 1) ^ rotl(inverse, 2) ^ rotl(inverse, 3) ^ rotl(inverse, 4) ^ 0x63;
  }
  return SBox(std::move(lut), 8);
}

/// Bogdanov et al., "PRESENT: An Ultra-Lightweight Block Cipher" (CHES 2007), Table 1.
SBox present() { return SBox({0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2}, 4); }

struct Named {
  std::string_view name;
  SBox (*make)();
};
constexpr std::array<Named, 2> kCatalogue = {{{"aes", aes}, {"present", present}}};

}  // namespace

std::optional<SBox> named_sbox(std::string_view name) {
  for (const Named& entry : kCatalogue)
    if (entry.name == name) return entry.make();
  return std::nullopt;
}

std::vector<std::string_view> named_sbox_names() {
  std::vector<std::string_view> names;
  for (const Named& entry : kCatalogue) names.push_back(entry.name);
  return names;
}

}  // namespace fastconv
