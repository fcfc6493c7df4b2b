// fastconv — the command-line tool. Exit codes: 0 success, 2 bad input or usage,
// 1 environment or device failure. Errors go to stderr as "fastconv: error: <message>".
#include "common.hpp"

int main(int argc, char** argv) { return fastconv::cli::run(argc, argv); }
