// Uses the installed library: seed 001's Example 3 through the public API.
#include <fastconv/fastconv.hpp>

#include <cstdio>
#include <vector>

int main() {
  std::vector<long> f = {1, 0, 1, 1}, g = {0, 1, 0, 1};
  const auto c = fastconv::convolve(f, g);
  std::vector<double> spectrum = {1, 0, 1, 1};
  fastconv::wht(spectrum);
  const bool ok = c == std::vector<long>{1, 2, 1, 2} && spectrum == std::vector<double>{3, 1, -1, 1};
  std::printf("consumer: fastconv %s, convolve -> %ld %ld %ld %ld: %s\n", std::string(fastconv::version()).c_str(),
              c[0], c[1], c[2], c[3], ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
