#!/usr/bin/env bash
# bench_rc_sourced.sh - what reading the start-up files for what they
# source (review25 08) costs a file tool: `wswrite --no-sync` of 4 KiB,
# old binaries against new, in interleaved rounds (tests/bench/interleave.c),
# with a realistic .bashrc (Debian's skeleton and installers' lines), .zshrc
# (oh-my-zsh's template and powerlevel10k's) and .profile, three ways:
#   home      HOME is the workspace (every start-up file read, per call)
#   in-home   the workspace is ~/proj (read too: a target may lie there)
#   elsewhere HOME beside the workspace (nothing new read)
# Usage: bench_rc_sourced.sh OLD_BIN_DIR NEW_BIN_DIR [ROUNDS]
set -euo pipefail
old=$1 new=$2 rounds=${3:-400}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/interleave" "$here/interleave.c"
h=$tmp/home
mkdir -p "$h/proj" "$tmp/elsewhere" "$tmp/state" "$h/.nvm"
if [ -f /etc/skel/.bashrc ]; then cp /etc/skel/.bashrc /etc/skel/.profile "$h/"; fi
cat >>"$h/.bashrc" <<'RC'
[ -f ~/.fzf.bash ] && source ~/.fzf.bash
. "$HOME/.cargo/env"
export NVM_DIR="$HOME/.nvm"
[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"
[ -s "$NVM_DIR/bash_completion" ] && \. "$NVM_DIR/bash_completion"
. "$HOME/.deno/env"
source ~/.my-env.sh
for f in ~/.bashrc.local.d/*.sh; do . "$f"; done
RC
echo 'export MY=1' >"$h/.my-env.sh"
cat >"$h/.zshrc" <<'RC'
if [[ -r "${XDG_CACHE_HOME:-$HOME/.cache}/p10k-instant-prompt-${(%):-%n}.zsh" ]]; then
  source "${XDG_CACHE_HOME:-$HOME/.cache}/p10k-instant-prompt-${(%):-%n}.zsh"
fi
export ZSH="$HOME/.oh-my-zsh"
ZSH_THEME="powerlevel10k/powerlevel10k"
plugins=(git z fzf)
source $ZSH/oh-my-zsh.sh
[[ ! -f ~/.p10k.zsh ]] || source ~/.p10k.zsh
[ -f ~/.fzf.zsh ] && source ~/.fzf.zsh
RC
# oh-my-zsh's template is mostly comments: 100 lines of them.
for i in $(seq 1 100); do echo "# ZSH_CUSTOM=/path/to/new-custom-folder line $i"; done >>"$h/.zshrc"
small=$(head -c 3072 /dev/urandom | base64 -w0)
printf 'start-up files: %s\n' "$(cd "$h" && wc -c .bashrc .profile .zshrc | tail -1)"
cat /proc/loadavg
run() { # NAME WS
	"$tmp/interleave" -r "$rounds" -w 20 \
		"old-$1" "HOME=$h XDG_STATE_HOME=$tmp/state $old/wswrite --workspace $2 --no-sync --content-base64 $small out/a.c" \
		"new-$1" "HOME=$h XDG_STATE_HOME=$tmp/state $new/wswrite --workspace $2 --no-sync --content-base64 $small out/a.c"
}
run home "$h"
run in-home "$h/proj"
run elsewhere "$tmp/elsewhere"
cat /proc/loadavg
