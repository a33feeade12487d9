/*
 * places.c - persistence places shared by the CLI suites (places.h).
 */
#include "places.h"

const char *const wst_review14_places[] = {
	".rbenv/shims/ruby", ".asdf/asdf.sh", ".sdkman/bin/sdkman-init.sh",
	".ghcup/env", ".opam/opam-init/init.sh", ".bun/bin/bun",
	".deno/bin/deno", ".volta/bin/node", ".local/share/pnpm/pnpm",
	".local/share/mise/shims/python", ".config/mise/config.toml",
	".local/share/jupyter/kernels/python3/kernel.json",
	".config/containers/containers.conf", ".wezterm.lua",
	".config/kitty/kitty.conf", ".config/alacritty/alacritty.toml",
	".erlang", ".pryrc", ".octaverc", ".guile", ".sbclrc", ".ocamlinit",
	".tclshrc", ".xonshrc", ".my.cnf", ".sbt/1.0/plugins/p.sbt",
};
const size_t wst_review14_nplaces =
	sizeof(wst_review14_places) / sizeof(wst_review14_places[0]);
