/*
 * cmds.h - every tool's command line as a function (cmd/main.c makes each
 * a binary): argv into the tool's arguments, the call and its printing,
 * all on the tool table (ws/tool.h), which wstools call and mcp use
 * directly.
 *
 * Each returns the exit status its binary would, prints its result to
 * ws_out() and its diagnostics to stderr, and never calls exit(): a call
 * leaves no state behind for the next one in the same process.
 */
#ifndef WS_CMDS_H
#define WS_CMDS_H

int ws_cmd_wsls(int argc, char **argv);
int ws_cmd_wsread(int argc, char **argv);
int ws_cmd_wswrite(int argc, char **argv);
int ws_cmd_wsgrep(int argc, char **argv);
int ws_cmd_wsrun(int argc, char **argv);
int ws_cmd_wspath(int argc, char **argv);
/* The front door (wstools.c); its "call" runs the binaries above. */
int ws_cmd_wstools(int argc, char **argv);

#endif
