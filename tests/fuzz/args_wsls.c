/*
 * The option table of wsls for fuzz_args: cmd/wsls.c compiled as it is, its
 * main() renamed, so that the fuzzer parses with the very table the tool
 * uses (the table is static there, and stays so).
 */
#include "fuzz_args.h"

int fuzz_main_wsls(int argc, char **argv);
#define main fuzz_main_wsls
#include "../../cmd/wsls.c"
#undef main

const struct ws_tool *const fuzz_args_wsls[] = {&tool};
const size_t fuzz_args_nwsls = 1;
