/*
 * The option table of wsread for fuzz_args: cmd/wsread.c compiled as it is, its
 * main() renamed, so that the fuzzer parses with the very table the tool
 * uses (the table is static there, and stays so).
 */
#include "fuzz_args.h"

int fuzz_main_wsread(int argc, char **argv);
#define main fuzz_main_wsread
#include "../../cmd/wsread.c"
#undef main

const struct ws_tool *const fuzz_args_wsread[] = {&tool};
const size_t fuzz_args_nwsread = 1;
