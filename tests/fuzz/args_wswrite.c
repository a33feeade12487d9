/*
 * The option table of wswrite for fuzz_args: cmd/wswrite.c compiled as it is, its
 * main() renamed, so that the fuzzer parses with the very table the tool
 * uses (the table is static there, and stays so).
 */
#include "fuzz_args.h"

int fuzz_main_wswrite(int argc, char **argv);
#define main fuzz_main_wswrite
#include "../../cmd/wswrite.c"
#undef main

const struct ws_tool *const fuzz_args_wswrite[] = {&tools[0], &tools[1], &tools[2], &tools[3], &tools[4]};
const size_t fuzz_args_nwswrite = T_COUNT;
