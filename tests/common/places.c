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

const char *const wst_review16_places[] = {
	".local/share/direnv/allow/h", ".direnvrc",
	".cache/pre-commit/repo1/hook.py", ".config/go/env",
	".node_modules/fs-extra/index.js", ".node_libraries/x.js",
	".gem/ruby/3.0.0/gems/x/lib/x.rb", ".local/share/gem/ruby/3.3.0/gems/x/x.rb",
	".gemrc", ".config/gem/gemrc", ".bundle/config",
	".bundle/plugin/index", ".local/share/pipx/venvs/x/bin/x",
	".local/pipx/venvs/x/bin/x", ".local/share/uv/tools/x/bin/x",
	".local/share/uv/python/cpython-3.12/bin/python3", ".pylintrc",
	".config/pylintrc", ".bazelrc", ".config/nixpkgs/overlays/x.nix",
	".config/nix/nix.conf", ".vscode-server/extensions/x/extension.js",
	".config/nushell/config.nu", ".local/share/nushell/vendor/autoload/x.nu",
	".config/powershell/Microsoft.PowerShell_profile.ps1",
	".local/share/powershell/Modules/x/x.psm1", ".config/xonsh/rc.xsh",
	".config/wezterm/wezterm.lua", ".config/helix/languages.toml",
	".local/share/gnome-shell/extensions/x/extension.js",
	".config/awesome/rc.lua", ".config/qtile/config.py",
	".config/bspwm/bspwmrc", ".config/openbox/autostart", ".forward",
	".mozilla/firefox/p/user.js",
};
const size_t wst_review16_nplaces =
	sizeof(wst_review16_places) / sizeof(wst_review16_places[0]);

const char *const wst_review18_places[] = {
	".selected_editor", ".bunfig.toml",
	".config/sublime-text/Packages/User/plugin.py",
	".config/sublime-text-3/Packages/User/plugin.py",
	".vscode/extensions/x.y-1.0.0/package.json",
	".vscode-insiders/extensions/x.y-1.0.0/package.json",
	".vscode-oss/extensions/x.y-1.0.0/package.json",
	".cursor/extensions/x.y-1.0.0/package.json",
	".config/Cursor/User/settings.json", ".config/zed/settings.json",
	".local/share/JetBrains/IdeaIC2024.1/plugin.jar",
	".config/JetBrains/IdeaIC2024.1/idea64.vmoptions", ".muttrc",
	".mutt/muttrc", ".config/mutt/muttrc", ".neomuttrc",
	".config/neomutt/neomuttrc", ".config/lf/lfrc", ".config/ranger/rc.conf",
	".config/yazi/init.lua", ".config/mpv/scripts/x.lua",
	".config/qutebrowser/config.py", ".stack/hooks/ghc-install.sh",
	".config/waybar/config", ".config/polybar/config.ini",
	".config/labwc/autostart", ".config/river/init", ".config/niri/config.kdl",
	".xbindkeysrc", ".config/dunst/dunstrc",
	".local/state/mise/trusted-configs/x",
};
const size_t wst_review18_nplaces =
	sizeof(wst_review18_places) / sizeof(wst_review18_places[0]);

const char *const wst_review28_places[] = {
	".claude.json", ".claude.json.backup", ".claude/commands/x.md",
	".claude/hooks/h.sh", ".codex/config.toml", ".gemini/settings.json",
	".codeium/windsurf/mcp_config.json", ".config/opencode/opencode.json",
	".continue/config.yaml",
};
const size_t wst_review28_nplaces =
	sizeof(wst_review28_places) / sizeof(wst_review28_places[0]);
