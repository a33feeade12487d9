/*
 * The option table of wspath for fuzz_args: cmd/wspath.c compiled as it is, its
 * main() renamed, so that the fuzzer parses with the very table the tool
 * uses (the table is static there, and stays so).
 */
#include "fuzz_args.h"

int fuzz_main_wspath(int argc, char **argv);
#define main fuzz_main_wspath
#include "../../cmd/wspath.c"
#undef main

const struct ws_tool *const fuzz_args_wspath[] = {&tool};
const size_t fuzz_args_nwspath = 1;
