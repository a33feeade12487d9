/*
 * The option table of wsgrep for fuzz_args: cmd/wsgrep.c compiled as it is, its
 * main() renamed, so that the fuzzer parses with the very table the tool
 * uses (the table is static there, and stays so).
 */
#include "fuzz_args.h"

int fuzz_main_wsgrep(int argc, char **argv);
#define main fuzz_main_wsgrep
#include "../../cmd/wsgrep.c"
#undef main

const struct ws_tool *const fuzz_args_wsgrep[] = {&tool};
const size_t fuzz_args_nwsgrep = 1;
