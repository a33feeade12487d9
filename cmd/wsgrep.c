/*
 * wsgrep - search file contents in the workspace with a PCRE2 regex or a
 * literal, or find files by name (--files).
 *
 * LLM tool name search_files.  Plain output is grep -rn's
 * (path:line:text); JSON gives matches with their context and a summary,
 * paged by --max-results and --offset; --jsonl streams one object per
 * result, then the summary.  The search itself is lib/grep.c, the tool
 * on the tool table in lib/tool_grep.c.
 */
#include <stdio.h>
#include <unistd.h>

#include "ws/tool.h"

#include "cmds.h"

int
ws_cmd_wsgrep(int argc, char **argv)
{
	/* A pipe's default buffer is one page: a write(2) per few lines. */
	if (ws_out_is_stdout() && !isatty(1))
		setvbuf(stdout, NULL, _IOFBF, 64 * 1024);
	return ws_tool_main(&ws_tool_search_files, argc, argv);
}
