/*
 * The option table of wsrun for fuzz_args: cmd/wsrun.c compiled as it is, its
 * main() renamed, so that the fuzzer parses with the very table the tool
 * uses (the table is static there, and stays so).
 */
#include "fuzz_args.h"

int fuzz_main_wsrun(int argc, char **argv);
#define main fuzz_main_wsrun
#include "../../cmd/wsrun.c"
#undef main

const struct ws_tool *const fuzz_args_wsrun[] = {&tool};
const size_t fuzz_args_nwsrun = 1;
