/*
 * fuzz_args.h - the tools' option tables, for fuzz_args (each args_TOOL.c
 * compiles cmd/TOOL.c with its main() renamed and exports its table).
 */
#ifndef FUZZ_ARGS_H
#define FUZZ_ARGS_H

#include <stddef.h>

#include "ws/cli.h"

extern const struct ws_tool *const fuzz_args_wsls[], *const fuzz_args_wsread[],
	*const fuzz_args_wswrite[], *const fuzz_args_wsgrep[],
	*const fuzz_args_wspath[], *const fuzz_args_wsrun[];
extern const size_t fuzz_args_nwsls, fuzz_args_nwsread, fuzz_args_nwswrite,
	fuzz_args_nwsgrep, fuzz_args_nwspath, fuzz_args_nwsrun;

#endif
