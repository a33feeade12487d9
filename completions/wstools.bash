# bash completion for wstools: wsls, wsread, wswrite, wsgrep, wsrun, wspath
# and wstools.
#
# Options come from each tool's own --help (read once per shell), so they
# never drift from the binary.  Path arguments are completed in the
# virtual view, through wsls with the workspace options already typed on
# the line (--workspace, --mount, --config, --policy, WS_ROOT, ...): "/sr"
# completes to "/src/" of the workspace, never to the host's /srv.

_ws_options()
{
	local all="$*" var
	var="_ws_opts_${all//[^a-zA-Z0-9]/_}"
	if [[ -z ${!var-} ]]; then
		printf -v "$var" '%s' "$("$@" --help 2>/dev/null |
			sed -n 's/^ \{1,\}\(-[^ ,]*\(, --[^ ]*\)\{0,1\}\).*/\1/p' |
			tr ',' '\n' | sed 's/^ *//; s/^--\[no-\]\(.*\)/--\1 --no-\1/; s/[=[].*//' |
			tr ' ' '\n')"
	fi
	printf '%s\n' "${!var}"
}

# The workspace options typed so far, for the wsls call that lists paths.
_ws_context()
{
	local i w
	_ws_ctx=()
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--workspace | --mount | --config | --policy | --project-root)
			_ws_ctx+=("$w" "${COMP_WORDS[i + 1]}")
			((i++))
			;;
		--workspace=* | --mount=* | --config=* | --policy=* | \
			--strict | --no-detect-root)
			_ws_ctx+=("$w")
			;;
		esac
	done
}

# Complete cur as a path of the virtual view.
_ws_vpaths()
{
	local cur=$1 dir base mode size mtime rest name line
	if [[ $cur == */* ]]; then
		dir=${cur%/*}/
		base=${cur##*/}
	else
		dir=""
		base=$cur
	fi
	_ws_context
	while IFS= read -r line; do
		read -r mode size mtime rest <<<"$line"
		name=${rest% -> *}
		[[ $name == "$base"* ]] || continue
		[[ $base != .* && $name == .* ]] && continue
		if [[ $mode == d* ]]; then
			COMPREPLY+=("$dir$name/")
		else
			COMPREPLY+=("$dir$name")
		fi
	done < <(wsls --plain "${_ws_ctx[@]}" -a -l -- "${dir:-/}" 2>/dev/null)
	compopt -o nospace 2>/dev/null
}

_ws_policies()
{
	local d f
	for d in "${XDG_CONFIG_HOME:-$HOME/.config}/wstools/policies" \
		/etc/wstools/policies /usr/local/share/wstools/policies \
		/usr/share/wstools/policies; do
		for f in "$d"/*.json; do
			[[ -f $f ]] || continue
			f=${f##*/}
			COMPREPLY+=($(compgen -W "${f%.json}" -- "$1"))
		done
	done
}

_ws_complete()
{
	local tool=${COMP_WORDS[0]##*/} cur=${COMP_WORDS[COMP_CWORD]}
	local prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	case $prev in
	--workspace | --project-root | --allow-read | --allow-write)
		compopt -o dirnames 2>/dev/null
		return
		;;
	--config | -f)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return
		;;
	--policy) _ws_policies "$cur"; return ;;
	--paths) COMPREPLY=($(compgen -W "virtual relative real" -- "$cur")); return ;;
	--sort) COMPREPLY=($(compgen -W "name size mtime" -- "$cur")); return ;;
	--isolate) COMPREPLY=($(compgen -W "auto strict none" -- "$cur")); return ;;
	--compat) COMPREPLY=($(compgen -W "mcp-filesystem" -- "$cur")); return ;;
	--tool) COMPREPLY=($(compgen -W "write_file edit_file create_directory move_path delete_path" -- "$cur")); return ;;
	-t | -T | --type | --type-not)
		COMPREPLY=($(compgen -W "$("$tool" --type-list 2>/dev/null |
			sed 's/[: ].*//')" -- "$cur"))
		return
		;;
	--cwd | --move) _ws_vpaths "$cur"; return ;;
	--mount | --args | --content | --old | --new | --env | --timeout | \
		--depth | --max-* | --start-line | --end-line | --tail | -e | \
		--include | --exclude | -A | -B | -C | -m | --offset | --grace | \
		--memory | --keep-env | --if-version | --fields | --time-budget | \
		--net-allow | --net-deny | \
		--max-message)
		return
		;;
	esac
	# wstools mcp: its own options; its DIRs are host directories.
	if [[ $tool == wstools && ${COMP_WORDS[1]-} == mcp && $COMP_CWORD -gt 1 ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_ws_options wstools mcp)" -- "$cur"))
		else
			compopt -o dirnames 2>/dev/null
			COMPREPLY=($(compgen -d -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_ws_options "$tool")" -- "$cur"))
		return
	fi
	case $tool in
	wsrun) compopt -o default 2>/dev/null; COMPREPLY=($(compgen -c -- "$cur")) ;;
	wstools) COMPREPLY=($(compgen -W "schemas call mcp" -- "$cur")) ;;
	*) _ws_vpaths "$cur" ;;
	esac
}

complete -F _ws_complete wsls wsread wswrite wsgrep wsrun wspath wstools
