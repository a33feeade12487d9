/*
 * places.h - persistence places shared by the CLI suites, so that the
 * file tools' suite (test_guards.c) and the command runner's
 * (test_wsrun.c) check one list and cannot drift apart.
 */
#ifndef WST_PLACES_H
#define WST_PLACES_H

#include <stddef.h>

/*
 * The HOME places review14 (02) found missing (version managers,
 * Jupyter's user kernelspecs, podman's configuration, terminals',
 * interpreters' and clients' start-up files): one file in each, relative
 * to HOME, as a command or a file tool would plant it.
 */
extern const char *const wst_review14_places[];
extern const size_t wst_review14_nplaces;

/*
 * The HOME places review16 (01) found missing (direnv's allow list,
 * pre-commit's hooks, go env, Node's, RubyGems', Bundler's, pipx's and
 * uv's places, linters' and build tools' rc files, shells', editors'
 * and desktops' configuration, ~/.forward, Firefox's profiles).
 */
extern const char *const wst_review16_places[];
extern const size_t wst_review16_nplaces;

/*
 * The HOME places review18 (05) found missing (sensible-editor's file,
 * Bun's bunfig, editors' extensions, plugins and settings, mail clients',
 * file managers', mpv's and qutebrowser's configuration, Stack's hooks,
 * status bars', compositors' and xbindkeys' start-up files, dunst's
 * scripts, mise's trust store).
 */
extern const char *const wst_review18_places[];
extern const size_t wst_review18_nplaces;

/*
 * The HOME places review28 (07) found missing: coding agents' user
 * configuration (Claude Code's ~/.claude.json and ~/.claude/, Codex's,
 * Gemini CLI's, Windsurf's, opencode's, Continue's), which names the MCP
 * servers and hooks they start.  (~/.cursor/mcp.json, also one, is the
 * workspace's own guard first with HOME the workspace: not here.)
 */
extern const char *const wst_review28_places[];
extern const size_t wst_review28_nplaces;

#endif
